import {
  SERVER_DEFAULTS,
  AdminServersListResponse,
  HistoryQuery,
  IdParams,
  MessageResponse,
  MonitorResponse,
  RconCheckBody,
  RconCheckResponse,
  ServerBody,
  ServerHistoryResponse,
  ServerSaveResponse,
  ServersListResponse,
  ServerUpdateBody,
} from '@kubik/contract';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../context.ts';
import { sendCached } from '../../front-door/http.ts';
import { userOf } from '../../plugins/auth.ts';
import { azlinkRoutes } from './servers.azlink.routes.ts';
import { ServerMonitor, thinHistoryJob } from './servers.monitor.ts';
import * as service from './servers.service.ts';
import { firstServer, privacyChanged } from '../users/users.ports.ts';
import { errorReplies } from '../../lib/errors.ts';

const tags = ['Серверы'];

/** Each app's immediate check (one port registry serves every app a process builds). */
const immediateChecks = new WeakMap<AppContext, (id: number) => void>();

export function serversRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  return async (app) => {
    const monitor = new ServerMonitor(ctx, app.log);
    ctx.jobs.register(monitor.job());
    ctx.jobs.register(ctx.schedule.job(thinHistoryJob(ctx.db)));
    /** A changed address is checked at once, so the admin sees its status without waiting a minute. */
    const checkSoon = (id: number, log: { warn(obj: object, msg: string): void }) => {
      if (!ctx.jobs.isRunning) return;
      monitor
        .checkNow(id)
        .then(async (changed) => {
          if (changed) await ctx.publicCache.invalidate(service.LIST_CACHE_KEY);
        })
        .catch((error: unknown) => log.warn({ err: error, serverId: id }, 'immediate server check failed'));
    };

    // Setup's first server: made in setup's transaction, then checked like one added here.
    firstServer.provide({
      create: async (trx, actorId, input) =>
        (
          await service.insertServer(trx, actorId, {
            ...input,
            description: input.name,
            image_url: '',
            max_online: SERVER_DEFAULTS.max_online,
          })
        ).id,
      checkSoon: (appCtx, id) => {
        void appCtx.publicCache.invalidate(service.LIST_CACHE_KEY);
        immediateChecks.get(appCtx)?.(id);
      },
    });
    immediateChecks.set(ctx, (id) => checkSoon(id, app.log));
    // The list names players online; one who hides their profile leaves it at once, on every instance.
    privacyChanged.on('servers', (appCtx) => appCtx.publicCache.invalidate(service.LIST_CACHE_KEY));

    await app.register(azlinkRoutes(ctx));

    // The spec's client calls /api/servers/ with the slash; both spellings answer.
    for (const url of ['/api/servers/', '/api/servers']) {
      const hide = url === '/api/servers';
      app.get(url, {
        config: { access: 'public' },
        schema: {
          tags,
          hide,
          summary:
            'Список серверов с последним известным статусом и онлайном за сутки. Отвечает из сохранённых результатов, без опроса серверов.',
          response: { 200: ServersListResponse, 304: z.null() },
        },
        handler: async (req, reply) => {
          const body = await ctx.publicCache.get(service.LIST_CACHE_KEY, async () =>
            ServersListResponse.parse(await service.buildPublicList(ctx.db)),
          );
          return sendCached(req, reply, body);
        },
      });

      app.post(url, {
        config: { access: 'admin', permission: 'servers' },
        schema: {
          tags,
          hide,
          summary: 'Добавить сервер (администратор)',
          body: ServerBody,
          response: { 201: ServerSaveResponse, ...errorReplies(400, 401, 403) },
        },
        handler: async (req, reply) => {
          const admin = userOf(req);
          const row = await service.createServer(ctx, admin.id, req.body);
          checkSoon(row.id, req.log);
          return reply.code(201).send({ message: service.TEXTS.created, server: service.toAdmin(row) });
        },
      });
    }

    app.get('/api/servers/admin', {
      config: { access: 'admin', permission: 'servers' },
      schema: {
        tags,
        summary: 'Список серверов с настройками RCON (без пароля) и причиной последней ошибки (администратор)',
        response: { 200: AdminServersListResponse, ...errorReplies(401, 403) },
      },
      handler: async () => ({ servers: await service.listForAdmin(ctx.db) }),
    });

    app.post('/api/servers/monitor', {
      config: { access: 'admin', permission: 'servers' },
      schema: {
        tags,
        summary: 'Проверить все серверы сейчас (администратор); отвечает, когда проверки закончены',
        body: z.union([z.strictObject({}), z.null()]).optional(),
        response: { 200: MonitorResponse, ...errorReplies(400, 401, 403) },
      },
      handler: async () => {
        const result = await monitor.sweep(true);
        return { message: `Проверено серверов: ${result.checked}`, ...result };
      },
    });

    app.post('/api/servers/rcon-check', {
      config: { access: 'admin', permission: 'servers' },
      schema: {
        tags,
        summary:
          'Проверить RCON (администратор): вход с указанными (или сохранёнными у server_id) настройками и команда list. ' +
          'Сохранённый пароль отправляется только на сохранённый адрес RCON; для другого адреса нужен введённый пароль (400, поле rcon_password). ' +
          'Отвечает ответом сервера или точной причиной: соединение отклонено, неверный пароль, нет ответа за N мс, адрес не найден.',
        body: RconCheckBody,
        response: { 200: RconCheckResponse, ...errorReplies(400, 401, 403, 404, 429) },
      },
      handler: async (req) => {
        await ctx.limiter.hit(`rcon-check:${userOf(req).id}`, service.RCON_CHECKS_PER_WINDOW);
        return service.checkRcon(ctx, req.body);
      },
    });

    app.put('/api/servers/:id', {
      config: { access: 'admin', permission: 'servers' },
      schema: {
        tags,
        summary:
          'Изменить сервер (администратор). Не переданные необязательные поля не меняются; пустой rcon_password оставляет прежний пароль, null удаляет его. ' +
          'Пароль RCON привязан к адресу RCON (rcon_host или адрес сервера, rcon_port или 25575): смена адреса удаляет сохранённый пароль в том же сохранении (в журнале изменений), если новый не прислан вместе с ней.',
        params: IdParams,
        body: ServerUpdateBody,
        response: { 200: ServerSaveResponse, ...errorReplies(400, 401, 403, 404) },
      },
      handler: async (req) => {
        const admin = userOf(req);
        const { row, addressChanged, passwordDropped } = await service.updateServer(ctx, admin.id, req.params.id, req.body);
        if (addressChanged) checkSoon(row.id, req.log);
        return { message: passwordDropped ? service.TEXTS.updatedPasswordDropped : service.TEXTS.updated, server: service.toAdmin(row) };
      },
    });

    app.delete('/api/servers/:id', {
      config: { access: 'admin', permission: 'servers' },
      schema: {
        tags,
        summary: 'Удалить сервер (администратор)',
        params: IdParams,
        response: { 200: MessageResponse, ...errorReplies(400, 401, 403, 404, 409) },
      },
      handler: async (req) => {
        const admin = userOf(req);
        await service.deleteServer(ctx, admin.id, req.params.id);
        return { message: service.TEXTS.deleted };
      },
    });

    app.get('/api/servers/:id/history', {
      config: { access: 'public' },
      schema: {
        tags,
        summary: 'Онлайн сервера за период: пик игроков в каждом интервале (null — сервер не отвечал)',
        params: IdParams,
        querystring: HistoryQuery,
        response: { 200: ServerHistoryResponse, ...errorReplies(400, 404) },
      },
      handler: async (req, reply) => {
        reply.header('cache-control', 'public, max-age=30');
        return service.history(ctx.db, req.params.id, req.query.hours);
      },
    });

    app.get('/api/servers/:id/favicon.png', {
      config: { access: 'public' },
      schema: {
        tags,
        summary: 'Значок сервера из его ответа на пинг (PNG)',
        params: IdParams,
        response: { 200: z.any(), ...errorReplies(400, 404) },
      },
      handler: async (req, reply) => {
        const png = await service.favicon(ctx.db, req.params.id);
        // The list links it with ?v=<hash of the icon>, so a changed icon is a new address.
        return reply.type('image/png').header('cache-control', 'public, max-age=86400').send(png);
      },
    });
  };
}
