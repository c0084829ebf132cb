import { MessageResponse, SetupBody, SetupStatus } from '@kubik/contract';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppContext } from '../../context.ts';
import { setSessionCookie } from '../../plugins/auth.ts';
import { announceSetup, completeSetup, setupKeys, setupNeeded } from './setup.service.ts';
import { errorReplies } from '../../lib/errors.ts';
import { refuseWhileBlocked } from '../../front-door/refusals.ts';

const tags = ['Первый запуск'];

/** First-run setup: while no administrator exists, /setup creates the owner with the one-time code. */
export function setupRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  return async (app) => {
    app.addHook('onReady', async () => announceSetup(ctx, app.log));

    app.get('/api/setup', {
      config: { access: 'public' },
      schema: { tags, summary: 'Нужна ли первоначальная настройка (нет ни одного администратора)', response: { 200: SetupStatus } },
      handler: async (_req, reply) => {
        reply.header('cache-control', 'no-store');
        return { needed: await setupNeeded(ctx) };
      },
    });

    app.post('/api/setup', {
      config: { access: 'public' },
      // Over its address's limit, a try is refused before its body is read. The shared limit is
      // not checked here: it counts wrong codes only and must never refuse the right one.
      onRequest: refuseWhileBlocked(ctx.limiter, (req) => setupKeys.address(req.ip)),
      schema: {
        tags,
        summary:
          'Создать владельца сайта при первом запуске: одноразовый код из журнала сервера (и файла DATA_DIR/setup-code), имя, почта, пароль, название сайта, адрес игрового сервера. Один раз; после — 409 setup_done. Владелец сразу входит (cookie сеанса).',
        body: SetupBody,
        response: { 200: MessageResponse, ...errorReplies(400, 403, 409, 429) },
      },
      handler: async (req, reply) => {
        const { token } = await completeSetup(ctx, req.body, { ip: req.ip, userAgent: req.headers['user-agent'] });
        setSessionCookie(ctx, req, reply, token);
        return { message: 'Сайт настроен. Добро пожаловать!' };
      },
    });
  };
}
