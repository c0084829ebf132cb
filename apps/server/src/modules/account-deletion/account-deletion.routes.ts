import { DeleteAccountBody, MessageResponse } from '@kubik/contract';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppContext } from '../../context.ts';
import { clearSessionCookie, userOf } from '../../plugins/auth.ts';
import * as service from './account-deletion.service.ts';
import { errorReplies } from '../../lib/errors.ts';

export function accountDeletionRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  return async (app) => {
    app.post('/api/user/delete-account', {
      config: { access: 'user' },
      schema: {
        tags: ['Аккаунты'],
        summary:
          'Удалить свой аккаунт: { password, code } (code — код из приложения или код восстановления, если включена двухфакторная защита). Имя, почта и пароль стираются, все сеансы и входы в игру завершаются; покупки, платежи и операции по балансу сохраняются. Последний администратор удалить себя не может (409).',
        body: DeleteAccountBody,
        response: { 200: MessageResponse, ...errorReplies(400, 401, 409, 429) },
      },
      handler: async (req, reply) => {
        const message = await service.deleteOwnAccount(ctx, userOf(req), req.body.password, req.body.code);
        clearSessionCookie(ctx, req, reply);
        return { message };
      },
    });
  };
}
