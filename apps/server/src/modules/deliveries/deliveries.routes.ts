import { AdminDelivery, DeliveriesQuery, DeliveryActionResponse, IdParams, PlayerDeliveriesResponse, ResendBody } from '@kubik/contract';
import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../context.ts';
import { userOf } from '../../plugins/auth.ts';
import { DELIVERY_JOB, kickDeliveries } from './deliveries.queue.ts';
import { countByState } from './deliveries.repo.ts';
import * as service from './deliveries.service.ts';
import { DeliveryWorker } from './deliveries.worker.ts';
import { errorReplies } from '../../lib/errors.ts';

const tags = ['Выдача в игре'];

/** «Выдать повторно», also served under the shop's older path. */
export function resendRoute(ctx: AppContext, summary: string) {
  return {
    config: { access: 'admin' as const, permission: 'shop' as const },
    schema: {
      tags,
      summary,
      params: IdParams,
      body: ResendBody,
      response: { 200: DeliveryActionResponse, ...errorReplies(400, 401, 403, 404, 409) },
    },
    handler: async (req: FastifyRequest<{ Params: z.infer<typeof IdParams>; Body: z.infer<typeof ResendBody> }>) => {
      const delivery = await service.resendDelivery(ctx.db, userOf(req).id, req.params.id, req.body?.server_id);
      kickDeliveries(ctx);
      return { message: service.DELIVERY_TEXTS.resent, delivery };
    },
  };
}

export function deliveriesRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  return async (app) => {
    // Each pass starts a lane for every server with due rows and returns; the lanes stop after the
    // command at hand when the runner stops, and release() waits for them and frees unsent claims.
    const worker = new DeliveryWorker(ctx.db, ctx.config.delivery, app.log, ctx.claims);
    ctx.jobs.register({
      name: DELIVERY_JOB,
      intervalMs: ctx.config.delivery.intervalMs,
      recover: () => worker.recover(),
      run: (signal) => worker.tick(signal),
      release: () => worker.stop(),
    });
    ctx.metrics.gauge({
      name: 'kubik_deliveries',
      help: 'Deliveries into the game by state',
      labelNames: ['state'],
      read: async () => (await countByState(ctx.db)).map((r) => ({ labels: { state: r.state }, value: Number(r.n) })),
    });

    app.get('/api/user/deliveries', {
      config: { access: 'user' },
      schema: {
        tags,
        summary: 'Мои выдачи в игре (покупки, привилегии, наборы): состояние и почему ожидает',
        response: { 200: PlayerDeliveriesResponse, ...errorReplies(401) },
      },
      handler: async (req) => ({ deliveries: await service.listForPlayer(ctx.db, userOf(req).id) }),
    });

    app.get('/api/admin/deliveries', {
      config: { access: 'admin', permission: 'shop' },
      schema: {
        tags,
        summary: 'Очередь выдачи в игре, все источники: состояние, команда и ответ сервера (новые сверху)',
        querystring: DeliveriesQuery,
        response: { 200: z.array(AdminDelivery), ...errorReplies(400, 401, 403) },
      },
      handler: async (req) => service.listDeliveries(ctx.db, req.query),
    });

    app.post(
      '/api/admin/deliveries/:id/resend',
      resendRoute(
        ctx,
        'Выдать повторно: ошибочная или неподтверждённая выдача снова встаёт в очередь (с той команды, на которой остановилась), ожидающая — отправляется сразу; server_id переносит её на другой сервер',
      ),
    );
  };
}
