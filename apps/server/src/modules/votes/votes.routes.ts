import {
  AdminVoteSite,
  IdParams,
  MessageResponse,
  VotePrizesBody,
  VoteSiteBody,
  VoteTopQuery,
  VoteTopResponse,
  VotesResponse,
} from '@kubik/contract';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../context.ts';
import { optionalUser, userOf } from '../../plugins/auth.ts';
import { votesThisMonth } from '../users/users.ports.ts';
import * as service from './votes.service.ts';
import { votePrizesJob } from './votes.prizes.ts';
import { VotePrizeSettings } from './votes.settings.ts';
import { errorReplies } from '../../lib/errors.ts';
import { refuseWhileBlocked } from '../../front-door/refusals.ts';

const tags = ['Голосование'];
const adminTags = ['Голосование (администратор)'];

/** A top's callback may be a form, a query or JSON; its answer is the plain text the top expects. */
const CallbackFields = z.record(z.string(), z.unknown()).optional();
const CALLBACK_BODY_LIMIT = 8 * 1024;

export function votesRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  return async (app) => {
    ctx.jobs.register(ctx.schedule.job(votePrizesJob(ctx)));
    votesThisMonth.provide((db, userId, now) =>
      service.votesInMonth(db, userId, service.monthOf(now, ctx.config.timeZone), ctx.config.timeZone),
    );

    // Only this plugin's routes (the callbacks) read forms: TopCraft and the others POST
    // application/x-www-form-urlencoded.
    app.addContentTypeParser(
      'application/x-www-form-urlencoded',
      { parseAs: 'string', bodyLimit: CALLBACK_BODY_LIMIT },
      (_req, body, done) => {
        done(null, Object.fromEntries(new URLSearchParams(body as string)));
      },
    );

    for (const method of ['GET', 'POST'] as const)
      app.route({
        method,
        url: '/api/votes/callback/:id',
        bodyLimit: CALLBACK_BODY_LIMIT,
        config: { access: 'public' },
        // An address over its limit is refused before its form or JSON is read.
        onRequest: refuseWhileBlocked(ctx.limiter, (req) => service.callbackKey(req.ip)),
        schema: {
          tags,
          summary:
            'Колбэк топа о голосе игрока (адрес выдаётся в админ-панели для каждого топа); ответ — текст, которого ждёт топ: ok/OK при принятом, повторном или раннем голосе и неизвестном нике; 403 vote_bad_signature при неверной подписи, 400 invalid/vote_stale при неполном запросе или устаревшем времени, 404 vote_site_not_found',
          params: IdParams,
          querystring: CallbackFields,
          ...(method === 'POST' ? { body: CallbackFields } : {}),
          response: { 200: z.string(), ...errorReplies(400, 403, 404, 429) },
        },
        handler: async (req, reply) => {
          const fields = service.fieldsOf(req.query, req.body);
          const answer = await service.handleCallback(ctx, req.params.id, fields, req.headers.authorization, req.ip);
          return reply.type('text/plain; charset=utf-8').header('cache-control', 'no-store').send(answer.text);
        },
      });

    app.get('/api/votes', {
      config: { access: 'public' },
      schema: {
        tags,
        summary: 'Топы для голосования, когда игрок сможет проголосовать снова, его голоса за месяц и призы месяца',
        response: { 200: VotesResponse },
      },
      handler: async (req, reply) => {
        reply.header('cache-control', 'no-store');
        return service.playerView(ctx, await optionalUser(req));
      },
    });

    app.get('/api/votes/top', {
      config: { access: 'public' },
      schema: {
        tags,
        summary: 'Лучшие голосующие месяца (month=ГГГГ-ММ, по умолчанию текущий в часовом поясе сайта)',
        querystring: VoteTopQuery,
        response: { 200: VoteTopResponse, ...errorReplies(400) },
      },
      handler: async (req) => service.monthTop(ctx, req.query.month),
    });

    app.get('/api/admin/vote-sites', {
      config: { access: 'admin', permission: 'votes' },
      schema: {
        tags: adminTags,
        summary:
          'Топы: настройки, адрес колбэка, счётчики колбэков по исходам и последние 50; окончание секретного ключа (secret_hint) — только владельцу, сотруднику пусто',
        response: { 200: z.array(AdminVoteSite), ...errorReplies(401, 403) },
      },
      handler: async (req) => service.adminList(ctx, userOf(req)),
    });

    // A new top brings a secret and a reward: whoever knows a top's secret signs votes for any account.
    app.post('/api/admin/vote-sites', {
      config: { access: 'admin', permission: 'owner' },
      schema: {
        tags: adminTags,
        summary: 'Добавить топ (только владелец: секретный ключ топа решает, чьим голосам сайт верит)',
        body: VoteSiteBody,
        response: { 201: AdminVoteSite, ...errorReplies(400, 401, 403) },
      },
      handler: async (req, reply) => reply.code(201).send(await service.createSite(ctx, userOf(req), req.body)),
    });

    app.put('/api/admin/vote-sites/:id', {
      config: { access: 'admin', permission: 'votes' },
      schema: {
        tags: adminTags,
        summary:
          'Изменить топ (пустой secret оставляет прежний ключ; enabled: false выключает). Ключ, вид и схему подписи, награду на баланс, перерыв и включение меняет только владелец (403 owner_only, поле указано); сотрудник меняет название, ссылку, команды и серверы, а остальное присылает как есть',
        params: IdParams,
        body: VoteSiteBody,
        response: { 200: AdminVoteSite, ...errorReplies(400, 401, 403, 404) },
      },
      handler: async (req) => service.updateSite(ctx, userOf(req), req.params.id, req.body),
    });

    app.delete('/api/admin/vote-sites/:id', {
      config: { access: 'admin', permission: 'votes' },
      schema: {
        tags: adminTags,
        summary: 'Выключить топ (голоса и журнал остаются; включить снова — PUT с enabled: true)',
        params: IdParams,
        response: { 200: MessageResponse, ...errorReplies(400, 401, 403, 404) },
      },
      handler: async (req) => {
        await service.disableSite(ctx, userOf(req), req.params.id);
        return { message: 'Топ выключен' };
      },
    });

    app.get('/api/admin/vote-prizes', {
      config: { access: 'admin', permission: 'votes' },
      schema: { tags: adminTags, summary: 'Призы за места 1…N месяца, ₽', response: { 200: VotePrizesBody, ...errorReplies(401, 403) } },
      handler: async () => ctx.settings.get(VotePrizeSettings),
    });

    // Prizes are balance paid out: the owner's (staff with `votes` see them).
    app.put('/api/admin/vote-prizes', {
      config: { access: 'admin', permission: 'owner' },
      schema: {
        tags: adminTags,
        summary: 'Задать призы за места 1…N (только владелец); их выплачивает задача после конца месяца (один раз)',
        body: VotePrizesBody,
        response: { 200: VotePrizesBody, ...errorReplies(400, 401, 403) },
      },
      handler: async (req) => ctx.settings.set(VotePrizeSettings, req.body, { actorId: userOf(req).id }),
    });
  };
}
