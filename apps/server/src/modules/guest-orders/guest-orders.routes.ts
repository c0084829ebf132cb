import { GuestOrder, GuestOrderBody, GuestTierOrderBody, IdParams, NewGuestOrder } from '@kubik/contract';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../context.ts';
import { errorReplies } from '../../lib/errors.ts';
import { foreignPaymentNotified, userRegistered } from '../users/users.ports.ts';
import * as service from './guest-orders.service.ts';

const tags = ['Покупки без аккаунта'];
const OrderParams = z.object({ id: z.uuid({ error: 'Заказ не найден' }) });

export function guestOrdersRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  // An account registered with a guest's nickname takes its orders, the tiers it holds and the deliveries still waiting.
  userRegistered.on('guest-orders', (trx, userId, { username }) => service.registered(trx, userId, username.toLowerCase()));
  return async (app) => {
    foreignPaymentNotified.on('guest-orders', (provider, providerPaymentId) => service.notified(ctx, provider, providerPaymentId, app.log));
    ctx.jobs.register(
      ctx.schedule.job({ name: 'guest-orders.reconcile', everyMs: 5 * 60_000, run: () => service.reconcile(ctx, Date.now(), app.log) }),
    );

    app.post('/api/shop/guest-orders', {
      config: { access: 'public' },
      schema: {
        tags,
        summary:
          'Купить товар для ника без аккаунта (если владелец включил): {nickname, email (для чека), shop_id, quantity, provider: yookassa | tbank}; оплата сразу у провайдера, баланс не участвует; выдача ждёт игрока с этим ником',
        body: GuestOrderBody,
        response: { 201: NewGuestOrder, ...errorReplies(400, 403, 404, 409, 429, 502) },
      },
      handler: async (req, reply) =>
        reply.code(201).send(await service.create(ctx, req.body, { ip: req.ip, userAgent: req.headers['user-agent'] ?? null })),
    });

    app.post('/api/donate/:id/guest-orders', {
      config: { access: 'public' },
      schema: {
        tags,
        summary:
          'Купить донат (привилегию) для ника без аккаунта (если владелец включил): {nickname, email (для чека), months — один из сроков доната, provider: yookassa | tbank}; ' +
          'цена срока сейчас, без зачёта; оплата сразу у провайдера с чеком «полный расчёт», баланс не участвует. Оплаченная привилегия выдаётся аккаунту с этим ником ' +
          '(по правилам покупки) или, пока его нет, нику в игре — и переходит к аккаунту, зарегистрированному с этим ником позже. known: false — ника нет ни среди аккаунтов, ни среди игроков сервера',
        params: IdParams,
        body: GuestTierOrderBody,
        response: { 201: NewGuestOrder, ...errorReplies(400, 403, 404, 409, 429, 502) },
      },
      handler: async (req, reply) =>
        reply
          .code(201)
          .send(await service.createTier(ctx, req.params.id, req.body, { ip: req.ip, userAgent: req.headers['user-agent'] ?? null })),
    });

    app.get('/api/shop/guest-orders/:id', {
      config: { access: 'public' },
      schema: {
        tags,
        summary: 'Заказ без аккаунта (страница возврата после оплаты; ожидающий перечитывается у провайдера)',
        params: OrderParams,
        response: { 200: GuestOrder, ...errorReplies(400, 404) },
      },
      handler: async (req) => service.get(ctx, req.params.id),
    });
  };
}
