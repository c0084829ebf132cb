import {
  CreatePaymentBody,
  ErrorResponse,
  PAYMENT_PROVIDERS,
  PaymentCreated,
  PaymentIdParams,
  PaymentOptions,
  PlayerPayment,
} from '@kubik/contract';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../context.ts';
import { deviceToken, userOf } from '../../plugins/auth.ts';
import { hashToken } from '../../lib/tokens.ts';
import { paymentsService, type PaymentsService } from './payments.service.ts';
import { reconcileJob } from './payments.reconcile.ts';
import { errorReplies, HttpError } from '../../lib/errors.ts';
import { addressKey } from '../../lib/rate-limit.ts';
import { userErased } from '../users/users.ports.ts';
import { forgetPayer } from './payments.repo.ts';

const NOTIFY_SUMMARY: Record<(typeof PAYMENT_PROVIDERS)[number], string> = {
  yookassa: 'Уведомление ЮKassa (JSON; принимается только с её адресов YOOKASSA_NOTIFY_IPS; ответ 200)',
  tbank: 'Уведомление Т-Банка (JSON; проверяется Token; ответ — OK)',
  yoomoney:
    'HTTP-уведомление ЮMoney (форма; проверяется sha1_hash, решают только подписанные поля: amount не меньше запрошенной суммы за вычетом 3 %; каждая операция рассматривается один раз; codepro и unaccepted отклоняются; ответ 200)',
  freekassa: 'Оповещение FreeKassa (форма; только с её адресов, проверяется SIGN; ответ — YES)',
};

/** Form bodies of provider notifications (ЮMoney, FreeKassa): small, flat, strings only. */
function parseForm(body: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of new URLSearchParams(body)) if (!(k in out)) out[k] = v;
  return out;
}

const tags = ['Пополнение баланса'];

export function paymentsRoutes(ctx: AppContext, service: PaymentsService = paymentsService(ctx)): FastifyPluginAsyncZod {
  userErased.on('payments', forgetPayer);
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
        response: { 201: PaymentCreated, ...errorReplies(400, 401, 429, 502) },
      },
      handler: async (req, reply) => {
        // Kept with the payment: a referral reward is refused when the inviter's own browser or address pays.
        const device = deviceToken(req);
        const payer = {
          ip: req.ip,
          deviceHash: device && device.length <= 200 ? hashToken(device) : null,
          userAgent: req.headers['user-agent'] ?? null,
        };
        return reply.code(201).send(await service.create(userOf(req), req.body, payer));
      },
    });

    app.get('/api/payments', {
      config: { access: 'user' },
      schema: { tags, summary: 'Платежи игрока, новые первыми', response: { 200: z.array(PlayerPayment), ...errorReplies(401) } },
      handler: async (req) => service.list(userOf(req).id),
    });

    app.get('/api/payments/:id', {
      config: { access: 'user' },
      schema: {
        tags,
        summary: 'Один платёж игрока (ожидающий перечитывается у провайдера)',
        params: PaymentIdParams,
        response: { 200: PlayerPayment, ...errorReplies(400, 401, 404) },
      },
      handler: async (req) => service.getOwn(userOf(req).id, req.params.id),
    });

    // Providers' notifications: they only make the site re-read the payment from the provider
    // (or, where it has no API to ask, take its signed word). A sender outside the provider's
    // addresses is refused first, from memory; each other address has a limit, counted before the
    // body is read; refusals are counted, not kept.
    const perIp = ctx.config.payments.notifyPerIp ?? 300;
    // The refusals counted in memory reach the owner's summary before the site stops (and the
    // requests still draining write theirs before they are answered).
    app.addHook('preClose', () => service.registry.refusals.close());
    app.register(async (scope) => {
      scope.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: 16_384 }, (_req, body, done) =>
        done(null, parseForm(String(body))),
      );
      for (const provider of PAYMENT_PROVIDERS) {
        scope.post(`/api/payments/${provider}/notify`, {
          config: { access: 'public' },
          bodyLimit: 65_536,
          onRequest: async (req, reply) => {
            const foreign = await service.refuseSender(provider, req.ip);
            if (foreign)
              return reply
                .code(foreign.status as 403)
                .type(foreign.contentType)
                .send(foreign.body);
            try {
              // An IPv6 sender by its /64, like every per-address limit (a key over its limit is refused from memory).
              await ctx.limiter.hit(`pay-notify:ip:${addressKey(req.ip)}`, perIp);
            } catch (err) {
              if (err instanceof HttpError && err.statusCode === 429) await service.registry.refusals.add(provider, 'rate_limited', req.ip);
              throw err;
            }
          },
          schema: {
            tags,
            summary: NOTIFY_SUMMARY[provider],
            body: z.record(z.string(), z.unknown()),
            response: { 200: z.string(), ...errorReplies(400, 404, 429, 502), 403: z.union([ErrorResponse, z.string()]) },
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
    });
  };
}
