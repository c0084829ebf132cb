import { AdminSubscriptionsResponse, IdParams, SubscribeBody, SubscriptionCreated, UserSubscription } from '@kubik/contract';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../context.ts';
import { errorReplies } from '../../lib/errors.ts';
import { userOf } from '../../plugins/auth.ts';
import { goodsPaid } from '../users/users.ports.ts';
import { clockJob } from './subscriptions.clock.ts';
import * as service from './subscriptions.service.ts';

const tags = ['Подписки'];

const SubscriptionParams = z.object({ id: z.uuid({ error: 'Подписка не найдена' }) });

/** How often the clock looks for reminders, charges and ends. */
const CLOCK_EVERY_MS = 10 * 60_000;

export function subscriptionsRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  // A subscription's payment, once credited, grants its period in the crediting transaction.
  goodsPaid.on('subscriptions', service.periodPaid);
  return async (app) => {
    ctx.jobs.register(ctx.schedule.job(clockJob(ctx, { everyMs: CLOCK_EVERY_MS, log: app.log })));

    app.post('/api/donate/:id/subscribe', {
      config: { access: 'user' },
      schema: {
        tags,
        summary:
          'Подписаться на донат {provider: yookassa | tbank}: первая оплата на странице провайдера сохраняет карту, дальше списания каждый период без игрока; повторный запрос возвращает ту же ожидающую подписку',
        params: IdParams,
        body: SubscribeBody,
        response: { 201: SubscriptionCreated, 200: SubscriptionCreated, ...errorReplies(400, 401, 404, 409, 502) },
      },
      handler: async (req, reply) =>
        reply.code(201).send(
          await service.subscribe(ctx, userOf(req), req.params.id, req.body.provider, {
            consents: req.body.consents,
            ip: req.ip,
            userAgent: req.headers['user-agent'] ?? null,
          }),
        ),
    });

    app.get('/api/user/subscriptions', {
      config: { access: 'user' },
      schema: { tags, summary: 'Подписки игрока, новые первыми', response: { 200: z.array(UserSubscription), ...errorReplies(401) } },
      handler: async (req) => service.listMine(ctx.db, userOf(req).id),
    });

    app.delete('/api/user/subscriptions/:id', {
      config: { access: 'user' },
      schema: {
        tags,
        summary: 'Отменить подписку: списаний больше не будет, оплаченный срок остаётся',
        params: SubscriptionParams,
        response: { 200: UserSubscription, ...errorReplies(400, 401, 404) },
      },
      handler: async (req) => service.cancel(ctx, userOf(req).id, req.params.id),
    });

    app.get('/api/admin/subscriptions', {
      config: { access: 'admin', permission: 'payments.view' },
      schema: {
        tags,
        summary: 'Подписки (когда-либо оплаченные), выручка по месяцам и отток (администратор)',
        response: { 200: AdminSubscriptionsResponse, ...errorReplies(401, 403) },
      },
      handler: async () => service.adminOverview(ctx.db),
    });
  };
}
