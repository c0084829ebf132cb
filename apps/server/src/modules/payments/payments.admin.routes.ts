import {
  AdminPaymentDetail,
  AdminPaymentPage,
  AdminPaymentSettings,
  AdminPaymentsCsvQuery,
  AdminPaymentsQuery,
  PaymentIdParams,
  PaymentSettingsBody,
  RefundResponse,
} from '@kubik/contract';
import {
  AdminPaymentProvider,
  ProviderCheckResult,
  ProviderParams,
  ProviderUpdateBody,
  RefundBody,
} from '@kubik/contract/payment-connections';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../context.ts';
import { userOf } from '../../plugins/auth.ts';
import { userPayments } from '../users/users.ports.ts';
import { adminView, listPayments, paymentDetail, paymentsCsv, paymentsOfUser } from './payments.admin.ts';
import { refundPayment } from './payments.refund.ts';
import { toKopecks } from '../../lib/money.ts';
import { paymentsService, type PaymentsService } from './payments.service.ts';
import { PaymentSettings, savePaymentSettings } from './payments.settings.ts';
import { isOwner } from '../../lib/owner-only.ts';
import { errorReplies } from '../../lib/errors.ts';

const tags = ['Платежи (администратор)'];

/** The owner's side of payments: the list, its CSV, one payment with its events, refunds, bonus rules. */
export function paymentsAdminRoutes(ctx: AppContext, service: PaymentsService = paymentsService(ctx)): FastifyPluginAsyncZod {
  userPayments.provide(paymentsOfUser);
  const settingsView = async (): Promise<AdminPaymentSettings> => ({
    value: await ctx.settings.get(PaymentSettings),
    defaults: PaymentSettingsBody.parse(PaymentSettings.defaults(ctx.config)),
  });

  return async (app) => {
    app.get('/api/admin/payments', {
      config: { access: 'admin', permission: 'payments.view' },
      schema: {
        tags,
        summary:
          'Платежи: фильтры status, provider, player (часть имени), from/to (мс или ISO 8601, по времени создания; to не включается), страницы; totals — суммы по всем отобранным',
        querystring: AdminPaymentsQuery,
        response: { 200: AdminPaymentPage, ...errorReplies(400, 401, 403) },
      },
      handler: async (req) => listPayments(ctx, req.query),
    });

    app.get('/api/admin/payments.csv', {
      config: { access: 'admin', permission: 'payments.view' },
      schema: {
        tags,
        summary:
          'Те же платежи файлом CSV для Excel: UTF-8 с BOM, «;», суммы в рублях с копейками через запятую, даты в часовом поясе tz (по умолчанию Europe/Moscow)',
        querystring: AdminPaymentsCsvQuery,
        response: { 200: z.string(), ...errorReplies(400, 401, 403) },
      },
      handler: async (req, reply) => {
        const { text, filename } = await paymentsCsv(ctx, req.query);
        return reply
          .type('text/csv; charset=utf-8')
          .header('content-disposition', `attachment; filename="${filename}"`)
          .header('cache-control', 'no-store')
          .send(text);
      },
    });

    app.get('/api/admin/payments/:id', {
      config: { access: 'admin', permission: 'payments.view' },
      schema: {
        tags,
        summary: 'Один платёж: все уведомления и ответы провайдера, баланс игрока и можно ли вернуть',
        params: PaymentIdParams,
        response: { 200: AdminPaymentDetail, ...errorReplies(400, 401, 403, 404) },
      },
      handler: async (req) => paymentDetail(ctx, service, req.params.id),
    });

    app.post('/api/admin/payments/:id/refund', {
      config: { access: 'admin', permission: 'payments.refund' },
      schema: {
        tags,
        summary:
          'Вернуть оплаченный платёж (целиком или частично: {amount} ₽ на карту, по умолчанию всё, что осталось) через провайдера: эта часть и её доля бонуса списываются с баланса игрока (409 insufficient_funds, если их там уже нет; 409 refund_too_large — больше, чем осталось), затем провайдер возвращает деньги. 200 — возвращено, 202 — провайдер ещё решает; 502 refund_refused — отказ, деньги снова на балансе; 502 refund_unknown — нет ответа, возврат повторится сам',
        params: PaymentIdParams,
        body: RefundBody.nullish(),
        response: { 200: RefundResponse, 202: RefundResponse, ...errorReplies(400, 401, 403, 404, 409, 502) },
      },
      handler: async (req, reply) => {
        const amount = req.body?.amount;
        const { status, message } = await refundPayment(
          ctx,
          await service.adapters(),
          userOf(req).id,
          req.params.id,
          amount === undefined ? undefined : toKopecks(amount),
        );
        return reply.code(status).send({ payment: await adminView(ctx, req.params.id), message });
      },
    });

    app.get('/api/admin/payment-settings', {
      config: { access: 'admin', permission: 'settings' },
      schema: {
        tags,
        summary: 'Настройки платежей: бонусы к пополнению и ставка НДС в чеке',
        response: { 200: AdminPaymentSettings, ...errorReplies(401, 403) },
      },
      handler: settingsView,
    });

    app.put('/api/admin/payment-settings', {
      config: { access: 'admin', permission: 'settings' },
      schema: {
        tags,
        summary:
          'Сохранить настройки платежей (все поля): bonus_rules [{from (₽), percent}] — к платежу от from ₽ зачисляется percent % отдельной записью «бонус» (берётся лучшее подходящее правило). Бонусы меняет только владелец (403 owner_only): сотрудник присылает их как есть, меняя только ставку НДС',
        body: PaymentSettingsBody,
        response: { 200: AdminPaymentSettings, ...errorReplies(400, 401, 403) },
      },
      handler: async (req) => {
        const user = userOf(req);
        await savePaymentSettings(ctx, req.body, { id: user.id, owner: isOwner(user) });
        return settingsView();
      },
    });

    // Платежи → Подключения: providers set up in the browser; secrets are write-only.
    app.get('/api/admin/payment-providers', {
      config: { access: 'admin', permission: 'settings' },
      schema: {
        tags,
        summary:
          'Способы оплаты: включён ли, подключён ли (и чего не хватает), поля, ключи только как «задан/из переменных окружения/не задан», адрес для уведомлений (notification_url) и сводка отклонённых уведомлений',
        response: { 200: z.array(AdminPaymentProvider), ...errorReplies(401, 403) },
      },
      handler: async () => service.registry.list(),
    });

    app.put('/api/admin/payment-providers/:provider', {
      config: { access: 'admin', permission: 'settings' },
      schema: {
        tags,
        summary:
          'Настроить способ оплаты (только присланное меняется): {enabled, receipts, min, max, fields {…}, secrets {…}}; секрет строкой — заменить, null — удалить (снова действует переменная окружения). Поля (магазин, терминал, кошелёк, адреса), ключи и включение меняет только владелец (403 owner_only, поле указано); сотрудник меняет границы сумм, чеки и может выключить способ, а поля присылает как есть. Адрес — https на сервере самой платёжной системы или адрес из переменной окружения; смена адреса удаляет сохранённые ключи этого способа, кроме присланных в том же запросе. Применяется на всех экземплярах сразу, без перезапуска. Ответ — все способы, ключи без значений',
        params: ProviderParams,
        body: ProviderUpdateBody,
        response: { 200: z.array(AdminPaymentProvider), ...errorReplies(400, 401, 403, 404) },
      },
      handler: async (req) => {
        const user = userOf(req);
        await service.registry.update(req.params.provider, req.body, { id: user.id, owner: isOwner(user) });
        return service.registry.list();
      },
    });

    app.post('/api/admin/payment-providers/:provider/check', {
      config: { access: 'admin', permission: 'settings' },
      schema: {
        tags,
        summary:
          '«Проверить подключение»: безвредный запрос к платёжной системе с сохранёнными ключами по сохранённому адресу; ok и пояснение',
        params: ProviderParams,
        response: { 200: ProviderCheckResult, ...errorReplies(400, 401, 403) },
      },
      // Takes no addresses or keys: it checks what is saved, so a key goes only to an address the
      // owner saved (or the environment's), never to one sent with the check.
      handler: async (req) => {
        const adapter = (await service.adapters())[req.params.provider];
        if (!adapter) {
          const e = (await service.registry.effective())[req.params.provider];
          return {
            ok: false,
            message: e.enabled ? `Не хватает: ${e.missing.join(', ')}` : 'Способ оплаты выключен',
          };
        }
        return adapter.check();
      },
    });
  };
}
