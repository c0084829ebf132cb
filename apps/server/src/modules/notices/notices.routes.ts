import {
  AdminNoticeBody,
  AdminNoticeResponse,
  IdParams,
  NOTICES_PAGE_SIZE,
  NoticesQuery,
  NoticesReadBody,
  NoticesReadResponse,
  NoticesResponse,
} from '@kubik/contract';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../context.ts';
import { errorReplies, HttpError, unauthorized } from '../../lib/errors.ts';
import { userOf } from '../../plugins/auth.ts';
import { sessionTokenOf } from '../users/session-tokens.ts';
import { cachedSession } from '../users/users.logins.ts';
import { EventHub, STREAMS_PER_USER } from './notices.events.ts';
import { countUnread, deleteOldRead, listPage, markRead } from './notices.repo.ts';
import { ADMIN_NOTICE_TEXTS, sendToAll, sendToPlayer } from './notices.admin.ts';
import { signalRead } from './notices.service.ts';

const tags = ['Уведомления'];
const DAY = 86_400_000;
/** Read notices are kept this long; unread ones stay until read. */
const KEEP_READ_MS = 90 * DAY;

export const NOTICE_TEXTS = {
  tooManyStreams: 'Слишком много открытых вкладок сайта. Закройте лишние и обновите страницу.',
  ...ADMIN_NOTICE_TEXTS,
} as const;

export function noticesRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  return async (app) => {
    const hub = new EventHub(ctx, app.log);
    app.addHook('preClose', async () => hub.closeAll());
    app.addHook('onClose', async () => hub.stop());
    ctx.metrics.gauge({
      name: 'kubik_event_streams',
      help: 'Open live event streams (GET /api/user/events) of this instance',
      read: async () => [{ value: hub.size }],
    });
    ctx.jobs.register(
      ctx.schedule.job({
        name: 'notices.cleanup',
        everyMs: DAY,
        run: async () => {
          await deleteOldRead(ctx.db, Date.now() - KEEP_READ_MS);
        },
      }),
    );

    app.get('/api/user/notifications', {
      config: { access: 'user' },
      schema: {
        tags,
        summary: 'Мои уведомления (колокольчик): новые сверху, по 20 на странице, и сколько непрочитанных',
        querystring: NoticesQuery,
        response: { 200: NoticesResponse, ...errorReplies(400, 401) },
      },
      handler: async (req) => {
        const userId = userOf(req).id;
        const [{ items, total }, unread] = await Promise.all([
          listPage(ctx.db, userId, req.query.page, NOTICES_PAGE_SIZE),
          countUnread(ctx.db, userId),
        ]);
        return { items, page: req.query.page, pages: Math.max(1, Math.ceil(total / NOTICES_PAGE_SIZE)), total, unread };
      },
    });

    app.post('/api/user/notifications/read', {
      config: { access: 'user' },
      schema: {
        tags,
        summary: 'Отметить прочитанными: ids — эти уведомления, all: true — все',
        body: NoticesReadBody,
        response: { 200: NoticesReadResponse, ...errorReplies(400, 401) },
      },
      handler: async (req) => {
        const userId = userOf(req).id;
        await markRead(ctx.db, userId, 'ids' in req.body ? req.body.ids : null);
        await signalRead(ctx.db, userId);
        return { unread: await countUnread(ctx.db, userId) };
      },
    });

    app.get('/api/user/events', {
      config: { access: 'user' },
      schema: {
        tags,
        summary:
          'Живые события (text/event-stream): balance {balance} — баланс изменился; notification {notice, unread} — новое уведомление; read {unread} — прочитаны на другой вкладке. Комментарий-пинг каждые 20 с; поток закрывается, когда сеанс кончился.',
        response: { 200: z.string().describe('text/event-stream'), ...errorReplies(401, 429) },
      },
      handler: async (req, reply) => {
        const user = userOf(req);
        if (hub.count(user.id) >= STREAMS_PER_USER) throw new HttpError(429, NOTICE_TEXTS.tooManyStreams, { code: 'too_many_streams' });
        const token = sessionTokenOf(req.headers)!;
        const session = await cachedSession(ctx, token);
        if (!session) throw unauthorized();
        await hub.open(req, reply, user.id, token, session.expiresAt);
        return reply;
      },
    });

    app.post('/api/admin/notices', {
      config: { access: 'admin', permission: 'news' },
      schema: {
        tags,
        summary: 'Сообщение от администрации всем игрокам (в колокольчик)',
        body: AdminNoticeBody,
        response: { 200: AdminNoticeResponse, ...errorReplies(400, 401, 403) },
      },
      handler: async (req) => ({ message: NOTICE_TEXTS.sentAll, sent: await sendToAll(ctx, userOf(req), req.body) }),
    });

    app.post('/api/admin/users/:id/notice', {
      config: { access: 'admin', permission: 'players.view' },
      schema: {
        tags,
        summary: 'Сообщение от администрации одному игроку (в колокольчик)',
        params: IdParams,
        body: AdminNoticeBody,
        response: { 200: AdminNoticeResponse, ...errorReplies(400, 401, 403, 404) },
      },
      handler: async (req) => {
        await sendToPlayer(ctx, userOf(req), req.params.id, req.body);
        return { message: NOTICE_TEXTS.sentOne, sent: 1 };
      },
    });
  };
}
