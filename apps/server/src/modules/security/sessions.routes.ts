import { MessageResponse, SessionsResponse } from '@kubik/contract';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../context.ts';
import { clearSessionCookie, deviceToken, userOf } from '../../plugins/auth.ts';
import { sessionTokenOf } from '../users/session-tokens.ts';
import { newDeviceLogin } from '../users/users.ports.ts';
import * as service from './sessions.service.ts';
import { errorReplies } from '../../lib/errors.ts';

const tags = ['Сеансы и устройства'];

const SessionParams = z.object({ id: z.string().regex(/^[0-9a-f]{24}$/, 'Сеанс не найден: возможно, он уже завершён') });

export function sessionsRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  newDeviceLogin.on('security', service.notifyNewDevice);
  return async (app) => {
    app.get('/api/user/sessions', {
      config: { access: 'user' },
      schema: {
        tags,
        summary: 'Открытые входы на сайт: устройство словами, IP, когда вошли и когда последний раз заходили, отметка текущего',
        response: { 200: SessionsResponse, ...errorReplies(401) },
      },
      handler: async (req) => ({ sessions: await service.listSessions(ctx.db, userOf(req).id, sessionTokenOf(req.headers)) }),
    });

    app.delete('/api/user/sessions/:id', {
      config: { access: 'user' },
      schema: {
        tags,
        summary: '«Завершить»: закрыть один сеанс (свой — это выход)',
        params: SessionParams,
        response: { 200: MessageResponse.extend({ current: z.boolean() }), ...errorReplies(400, 401, 404) },
      },
      handler: async (req, reply) => {
        const { current } = await service.endSession(ctx, userOf(req), req.params.id, sessionTokenOf(req.headers));
        if (current) clearSessionCookie(ctx, req, reply);
        return { message: service.SESSION_TEXTS.ended, current };
      },
    });

    app.post('/api/user/sessions/revoke-all', {
      config: { access: 'user' },
      schema: {
        tags,
        summary:
          '«Выйти на всех устройствах»: завершает все сеансы, кроме текущего, и все входы лаунчеров; другие браузеры перестают считаться знакомыми',
        response: { 200: MessageResponse.extend({ ended: z.number().int() }), ...errorReplies(401) },
      },
      handler: async (req) => {
        const ended = await service.endOtherSessions(ctx, userOf(req), sessionTokenOf(req.headers), deviceToken(req));
        return { message: service.SESSION_TEXTS.endedAll, ended };
      },
    });
  };
}
