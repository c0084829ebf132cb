import {
  AdminFiscal,
  AdminLegalDoc,
  ConsentBody,
  ConsentPage,
  ConsentQuery,
  ConsentsNeeded,
  FiscalItem,
  FiscalItemBody,
  FiscalItemParams,
  FiscalSettingsBody,
  LegalDocBody,
  LegalDocParams,
  PublicLegal,
  PublicLegalDoc,
} from '@kubik/contract';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../context.ts';
import { errorReplies } from '../../lib/errors.ts';
import { userOf } from '../../plugins/auth.ts';
import * as legalRepo from '../site/legal.repo.ts';
import { paymentConsentsNeeded } from '../site/legal.service.ts';
import * as service from './fiscal.service.ts';

const tags = ['Продавец, документы и согласия'];

const IncomesQuery = z.strictObject({
  year: z.coerce.number({ error: 'Год: число' }).int('Год: число').min(2000, 'Год: от 2000').max(2100, 'Год: до 2100').optional(),
});
const MonthIncome = z.object({
  month: z.string(),
  count: z.number(),
  received: z.number(),
  refunded: z.number(),
  income: z.number(),
  by_provider: z.record(z.string(), z.number()),
});

/** The seller's fiscal details, per-item receipt settings, legal documents and the consents players gave. */
export function fiscalRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  return async (app) => {
    app.get('/api/admin/fiscal', {
      config: { access: 'admin', permission: 'payments.view' },
      schema: {
        tags,
        summary:
          'Продавец и чеки: форма (ip, ooo, self_employed), наименование, ИНН, ОГРН/ОГРНИП, tax_system_code, vat_code, контакты, возрастная маркировка; missing — чего не хватает для чеков',
        response: { 200: AdminFiscal, ...errorReplies(401, 403) },
      },
      handler: () => service.adminFiscal(ctx),
    });

    app.put('/api/admin/fiscal', {
      config: { access: 'admin', permission: 'payments.refund' },
      schema: {
        tags,
        summary:
          'Сохранить реквизиты продавца (присланные поля; остальные как были). ИНН и ОГРН проверяются по контрольным цифрам и по форме продавца (ООО — 10 и 13 цифр, ИП — 12 и 15, у самозанятого ОГРН нет); tax_system_code 1–6, vat_code 1–12 (коды ЮKassa). Наименование, ИНН и ОГРН показываются в подвале',
        body: FiscalSettingsBody,
        response: { 200: AdminFiscal, ...errorReplies(400, 401, 403) },
      },
      handler: async (req) => service.saveFiscal(ctx, req.body, userOf(req).id),
    });

    app.get('/api/admin/fiscal/items', {
      config: { access: 'admin', permission: 'payments.view' },
      schema: {
        tags,
        summary:
          'Ставка НДС и предмет расчёта каждой привилегии и товара (null — по умолчанию: НДС из настроек продавца, предмет «услуга»)',
        response: { 200: z.array(FiscalItem), ...errorReplies(401, 403) },
      },
      handler: () => service.fiscalItems(ctx),
    });

    app.put('/api/admin/fiscal/items/:kind/:id', {
      config: { access: 'admin', permission: 'payments.refund' },
      schema: {
        tags,
        summary: 'Задать ставку НДС (1–12) и предмет расчёта привилегии (tier) или товара (shop_item); null — по умолчанию',
        params: FiscalItemParams,
        body: FiscalItemBody,
        response: { 200: FiscalItem, ...errorReplies(400, 401, 403, 404) },
      },
      handler: async (req) => service.saveFiscalItem(ctx, req.params.kind, req.params.id, req.body, userOf(req).id),
    });

    app.get('/api/admin/fiscal/incomes', {
      config: { access: 'admin', permission: 'payments.view' },
      schema: {
        tags,
        summary:
          'Доходы самозанятого по месяцам (московское время) через ЮMoney и FreeKassa — их чеки в «Мой налог» он регистрирует сам: получено, возвращено, доход',
        querystring: IncomesQuery,
        response: { 200: z.array(MonthIncome), ...errorReplies(400, 401, 403) },
      },
      handler: async (req) => service.monthlyIncomes(ctx, req.query.year ?? new Date().getUTCFullYear()),
    });

    app.get('/api/admin/fiscal/incomes.csv', {
      config: { access: 'admin', permission: 'payments.view' },
      schema: {
        tags,
        summary: 'То же файлом CSV для Excel (UTF-8 с BOM, «;», рубли через запятую)',
        querystring: IncomesQuery,
        response: { 200: z.string(), ...errorReplies(400, 401, 403) },
      },
      handler: async (req, reply) => {
        const year = req.query.year ?? new Date().getUTCFullYear();
        return reply
          .type('text/csv; charset=utf-8')
          .header('content-disposition', `attachment; filename="incomes-${year}.csv"`)
          .header('cache-control', 'no-store')
          .send(service.incomesCsv(await service.monthlyIncomes(ctx, year)));
      },
    });

    app.get('/api/admin/legal/consents', {
      config: { access: 'admin', permission: 'payments.view' },
      schema: {
        tags,
        summary: 'Согласия игроков (оферта, персональные данные, возраст): кто, какую версию, когда, с какого адреса и браузера',
        querystring: ConsentQuery,
        response: { 200: ConsentPage, ...errorReplies(400, 401, 403) },
      },
      handler: async (req) => {
        const rows = await legalRepo.consentPage(ctx.db, req.query, 51);
        const items = rows.slice(0, 50).map((r) => ({
          ...r,
          kind: r.kind as 'offer' | 'privacy' | 'age',
          user_id: r.user_id === null ? null : Number(r.user_id),
          version: Number(r.version),
          accepted_at: Number(r.accepted_at),
          username: r.username ?? null,
        }));
        return { items, next: rows.length > 50 ? items.at(-1)!.id : null };
      },
    });

    app.get('/api/admin/legal/:kind', {
      config: { access: 'admin', permission: 'payments.view' },
      schema: {
        tags,
        summary:
          'Документ (offer — оферта, privacy — политика ПД, refund — правила возврата): все опубликованные версии и шаблон с реквизитами продавца',
        params: LegalDocParams,
        response: { 200: AdminLegalDoc, ...errorReplies(400, 401, 403) },
      },
      handler: async (req) => service.adminLegalDoc(ctx, req.params.kind),
    });

    app.put('/api/admin/legal/:kind', {
      config: { access: 'admin', permission: 'owner' },
      schema: {
        tags,
        summary:
          'Опубликовать новую версию документа (Markdown). Прежние версии хранятся. Опубликованные оферта и политика ПД становятся обязательными отметками при регистрации и перед оплатой; новая версия оферты спрашивается снова при следующей оплате',
        params: LegalDocParams,
        body: LegalDocBody,
        response: { 200: AdminLegalDoc, ...errorReplies(400, 401, 403) },
      },
      handler: async (req) => service.publishLegalDoc(ctx, req.params.kind, req.body, userOf(req).id),
    });

    app.get('/api/legal', {
      config: { access: 'public' },
      schema: {
        tags,
        summary: 'Реквизиты продавца, возрастная маркировка, опубликованные документы и какие согласия нужны при регистрации',
        response: { 200: PublicLegal },
      },
      handler: () => service.publicLegal(ctx),
    });

    app.get('/api/legal/consents', {
      config: { access: 'user' },
      schema: {
        tags,
        summary: 'Что игроку нужно подтвердить перед оплатой: оферту и политику ПД (новые версии), возраст (однажды)',
        response: { 200: ConsentsNeeded, ...errorReplies(401) },
      },
      handler: async (req) => ({ needed: await paymentConsentsNeeded(ctx.db, userOf(req).id) }),
    });

    app.post('/api/legal/consents', {
      config: { access: 'user' },
      schema: {
        tags,
        summary: 'Подтвердить согласия перед оплатой (отмеченные игроком): каждое хранится с версией, временем, адресом и браузером',
        body: ConsentBody,
        response: { 200: ConsentsNeeded, ...errorReplies(400, 401) },
      },
      handler: async (req) => {
        const userId = userOf(req).id;
        await service.givePaymentConsents(ctx, userId, req.body.consents, { ip: req.ip, userAgent: req.headers['user-agent'] ?? null });
        return { needed: await paymentConsentsNeeded(ctx.db, userId) };
      },
    });

    app.get('/api/legal/:kind', {
      config: { access: 'public' },
      schema: {
        tags,
        summary: 'Опубликованная версия документа (offer, privacy, refund): заголовок, HTML, номер версии',
        params: LegalDocParams,
        response: { 200: PublicLegalDoc, ...errorReplies(400, 404) },
      },
      handler: async (req) => service.publicLegalDoc(ctx, req.params.kind),
    });
  };
}
