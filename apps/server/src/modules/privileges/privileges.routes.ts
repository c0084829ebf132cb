import {
  AdminPrivilege,
  AdminPrivilegeGrantBody,
  AdminPrivilegesQuery,
  AdminPrivilegeUpdateBody,
  IdParams,
  KitClaimResponse,
  KitParams,
  MessageResponse,
  PRIVILEGE_TEXTS,
  PrivilegeBuyBody,
  PrivilegeBuyResponse,
  PrivilegeQuote,
  PrivilegeQuoteQuery,
  UserPrivilege,
} from '@kubik/contract';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../context.ts';
import { badRequest, errorReplies } from '../../lib/errors.ts';
import { userOf } from '../../plugins/auth.ts';
import { kickDeliveries } from '../deliveries/deliveries.queue.ts';
import { idempotencyKeyOf, purchaseHeaders } from '../purchases/purchases.http.ts';
import { siteName } from '../site/site.settings.ts';
import { currentTier, heldTiers, ledgerRefs } from '../users/users.ports.ts';
import * as admin from './privileges.admin.ts';
import { expiryJob } from './privileges.expiry.ts';
import { claimKit } from './privileges.kits.ts';
import * as purchase from './privileges.purchase.ts';
import { heldTierIds } from './privileges.repo.ts';
import { currentTierOf, listMine, purchaseDetails } from './privileges.service.ts';

const tags = ['Привилегии'];
const adminTags = ['Привилегии: администрирование'];

export function privilegesRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  heldTiers.provide(heldTierIds);
  ledgerRefs.provide('privilege', purchaseDetails);
  currentTier.provide(currentTierOf);
  return async (app) => {
    ctx.jobs.register(
      ctx.schedule.job(
        expiryJob(ctx.db, {
          siteName: () => siteName(ctx),
          publicUrl: ctx.config.publicUrl,
          everyMs: ctx.config.privileges.intervalMs,
          log: app.log,
          onEnded: () => kickDeliveries(ctx),
        }),
      ),
    );

    const user = { config: { access: 'user' as const } };
    const adminOnly = { config: { access: 'admin' as const, permission: 'donate' as const } };

    app.post('/api/donate/:id/buy', {
      ...user,
      attachValidation: true,
      schema: {
        tags,
        summary:
          'Купить донат на months месяцев: списание с баланса, привилегия и её команды в игре — в одной транзакции. Тот же донат продлевается от его конца; ' +
          'более высокий заменяет действующий низший, засчитывая его неиспользованные дни; более низкий при действующем высоком не продаётся. ' +
          'С заголовком Idempotency-Key повтор запроса возвращает первый ответ.',
        params: IdParams,
        headers: purchaseHeaders,
        body: PrivilegeBuyBody,
        response: { 200: PrivilegeBuyResponse, ...errorReplies(400, 401, 404, 409) },
      },
      handler: async (req) => {
        const me = userOf(req);
        const params = IdParams.safeParse(req.params);
        if (!params.success) throw badRequest(PRIVILEGE_TEXTS.notFound, { code: 'invalid', field: 'id' });
        const body = PrivilegeBuyBody.safeParse(req.body);
        if (!body.success)
          throw badRequest(body.error.issues[0]?.message ?? PRIVILEGE_TEXTS.badMonths, {
            code: 'invalid',
            field: body.error.issues[0]?.path.join('.') || 'months',
          });
        const { months, ...extras } = body.data;
        const answer = await purchase.buy(ctx, me, params.data.id, months, idempotencyKeyOf(req), extras);
        kickDeliveries(ctx);
        return answer;
      },
    });

    app.get('/api/donate/:id/quote', {
      ...user,
      schema: {
        tags,
        summary:
          'Что будет стоить и сделать покупка доната на months месяцев сейчас, по тем же правилам, что и покупка: цена срока, ' +
          'зачёт неиспользованных дней заменяемого низшего доната (credit), скидка по промокоду promo_code (promo), итог к списанию (total), новый срок. ' +
          'Промокод, который не действует на эту покупку, получает тот же отказ, что и покупка (404/409, field promo_code). ' +
          'gift=1 — цена в подарок: срок как новая привилегия, без зачёта. Ничего не меняет.',
        params: IdParams,
        querystring: PrivilegeQuoteQuery,
        response: { 200: PrivilegeQuote, ...errorReplies(400, 401, 404, 409) },
      },
      handler: async (req) =>
        purchase.quote(ctx.db, userOf(req).id, req.params.id, req.query.months, {
          promoCode: req.query.promo_code,
          gift: req.query.gift === '1',
        }),
    });

    app.post('/api/donate/kits/:kitId/claim', {
      ...user,
      schema: {
        tags,
        summary: 'Получить набор своей действующей привилегии (раз в его период); 409 с оставшимся временем, если рано',
        params: KitParams,
        response: { 200: KitClaimResponse, ...errorReplies(400, 401, 403, 404, 409) },
      },
      handler: async (req) => {
        const answer = await claimKit(ctx, userOf(req).id, req.params.kitId);
        kickDeliveries(ctx);
        return answer;
      },
    });

    app.get('/api/user/privileges', {
      ...user,
      schema: {
        tags,
        summary: 'Мои привилегии (новые сверху); у действующей — её наборы и когда их можно получить',
        response: { 200: z.array(UserPrivilege), ...errorReplies(401) },
      },
      handler: async (req) => listMine(ctx.db, userOf(req).id),
    });

    app.get('/api/admin/privileges', {
      ...adminOnly,
      schema: {
        tags: adminTags,
        summary: 'Выданные привилегии (новые сверху); active=1 — только незакончившиеся',
        querystring: AdminPrivilegesQuery,
        response: { 200: z.array(AdminPrivilege), ...errorReplies(400, 401, 403) },
      },
      handler: async (req) => admin.listAdmin(ctx.db, req.query),
    });

    app.post('/api/admin/privileges', {
      ...adminOnly,
      schema: {
        tags: adminTags,
        summary: 'Выдать привилегию вручную на days дней (без списания): тот же донат продлевается, низший заменяется, при высшем — отказ',
        body: AdminPrivilegeGrantBody,
        response: { 201: AdminPrivilege, ...errorReplies(400, 401, 403, 409) },
      },
      handler: async (req, reply) => {
        const granted = await admin.grant(ctx, userOf(req).id, req.body);
        kickDeliveries(ctx);
        return reply.code(201).send(granted);
      },
    });

    app.put('/api/admin/privileges/:id', {
      ...adminOnly,
      schema: {
        tags: adminTags,
        summary: 'Изменить окончание (expires_at, мс с 1970 г.); время в прошлом заканчивает привилегию сейчас, с командами снятия',
        params: IdParams,
        body: AdminPrivilegeUpdateBody,
        response: { 200: AdminPrivilege, ...errorReplies(400, 401, 403, 404, 409) },
      },
      handler: async (req) => {
        const updated = await admin.setEnd(ctx, userOf(req).id, req.params.id, req.body.expires_at);
        kickDeliveries(ctx);
        return updated;
      },
    });

    app.delete('/api/admin/privileges/:id', {
      ...adminOnly,
      schema: {
        tags: adminTags,
        summary: 'Снять привилегию сейчас (команды снятия выполняются)',
        params: IdParams,
        response: { 200: MessageResponse, ...errorReplies(400, 401, 403, 404, 409) },
      },
      handler: async (req) => {
        await admin.revoke(ctx, userOf(req).id, req.params.id);
        kickDeliveries(ctx);
        return { message: PRIVILEGE_TEXTS.revoked };
      },
    });
  };
}
