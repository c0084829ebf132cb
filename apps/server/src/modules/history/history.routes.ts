import { UserHistoryQuery, UserHistoryResponse } from '@kubik/contract';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppContext } from '../../context.ts';
import { userOf } from '../../plugins/auth.ts';
import { history } from './history.service.ts';
import { errorReplies } from '../../lib/errors.ts';

/** The player's one history (docs/history.md). */
export function historyRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  return async (app) => {
    app.get('/api/user/history', {
      config: { access: 'user' },
      schema: {
        tags: ['Личный кабинет'],
        summary:
          'Моя история: каждое движение баланса (пополнения с бонусом, покупки, привилегии, возвраты, изменения администратором с комментарием, награды) один раз, новые сверху, по 20 на страницу; kind — один вид; с выдачами в игру и их состоянием',
        querystring: UserHistoryQuery,
        response: { 200: UserHistoryResponse, ...errorReplies(400, 401) },
      },
      handler: async (req) => history(ctx.db, userOf(req).id, req.query),
    });
  };
}
