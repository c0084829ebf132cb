import { CreatePaymentBody, ErrorResponse, PaymentCreated, PaymentIdParams, PaymentOptions, PlayerPayment } from '@kubik/contract';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../context.ts';
import { userOf } from '../../plugins/auth.ts';
import { paymentsService, type PaymentsService } from './payments.service.ts';
import { reconcileJob } from './payments.reconcile.ts';

const tags = ['Пополнение баланса'];
const err = (...codes: number[]) => Object.fromEntries(codes.map((c) => [c, ErrorResponse]));

export function paymentsRoutes(ctx: AppContext, service: PaymentsService = paymentsService(ctx)): FastifyPluginAsyncZod {
  return async (app) => {
    ctx.jobs.register(ctx.schedule.job(reconcileJob(ctx, service)));

    app.get('/api/payments/options', {
      config: { access: 'public' },
      schema: {
        tags,
        summary: 'Способы оплаты (только подключённые), границы суммы, суммы-подсказки и бонусы',
        response: { 200: PaymentOptions },
      },
      handler: async () => service.options(),
    });

    app.post('/api/payments', {
      config: { access: 'user' },
      schema: {
        tags,
        summary:
          'Создать платёж на пополнение баланса: {amount (рубли, не больше двух знаков после запятой), provider}; ответ — ссылка на оплату',
        body: CreatePaymentBody,
        response: { 201: PaymentCreated, ...err(400, 401, 502) },
      },
      handler: async (req, reply) => reply.code(201).send(await service.create(userOf(req), req.body)),
    });

    app.get('/api/payments', {
      config: { access: 'user' },
      schema: { tags, summary: 'Платежи игрока, новые первыми', response: { 200: z.array(PlayerPayment), ...err(401) } },
      handler: async (req) => service.list(userOf(req).id),
    });

    app.get('/api/payments/:id', {
      config: { access: 'user' },
      schema: {
        tags,
        summary: 'Один платёж игрока (ожидающий перечитывается у провайдера)',
        params: PaymentIdParams,
        response: { 200: PlayerPayment, ...err(400, 401, 404) },
      },
      handler: async (req) => service.getOwn(userOf(req).id, req.params.id),
    });

    // Providers' notifications: they only make the site re-read the payment from the provider.
    for (const provider of ['yookassa', 'tbank'] as const) {
      app.post(`/api/payments/${provider}/notify`, {
        config: { access: 'public' },
        schema: {
          tags,
          summary:
            provider === 'yookassa'
              ? 'Уведомление ЮKassa (принимается только с её адресов YOOKASSA_NOTIFY_IPS)'
              : 'Уведомление Т-Банка (проверяется Token; ответ — OK)',
          body: z.record(z.string(), z.unknown()),
          response: { 200: z.string(), ...err(400, 404, 502), 403: z.union([ErrorResponse, z.string()]) },
        },
        handler: async (req, reply) => {
          const answer = await service.notify(provider, req.ip, req.body);
          return reply
            .code(answer.status as 200 | 403)
            .type(answer.contentType)
            .send(answer.body);
        },
      });
    }
  };
}
