import { AdminUser, AdminUserList, AdminUserUpdateBody, ErrorResponse, IdParams, MessageResponse } from '@kubik/contract';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppContext } from '../../context.ts';
import { sessionToken, userOf } from '../../plugins/auth.ts';
import * as service from './admin-users.service.ts';

const tags = ['Пользователи (администратор)'];
const err = (...codes: number[]) => Object.fromEntries(codes.map((c) => [c, ErrorResponse]));

export function adminUsersRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  return async (app) => {
    app.get('/api/user/all', {
      config: { access: 'admin' },
      schema: { tags, summary: 'Все пользователи, кроме удалённых', response: { 200: AdminUserList, ...err(401, 403) } },
      handler: async () => service.listUsers(ctx),
    });

    app.put('/api/user/:id', {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'Изменить пользователя. Меняется только присланное; пустой пароль оставляет прежний; новый баланс проводится через журнал операций.',
        params: IdParams,
        body: AdminUserUpdateBody,
        response: { 200: AdminUser, ...err(400, 401, 403, 404, 409) },
      },
      handler: async (req) => {
        const actor = userOf(req);
        return service.updateUser(ctx, actor, sessionToken(req) ?? null, req.params.id, req.body);
      },
    });

    app.delete('/api/user/:id', {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'Удалить пользователя: покупки и операции сохраняются, имя и почта освобождаются, сеансы завершаются',
        params: IdParams,
        response: { 200: MessageResponse, ...err(400, 401, 403, 404, 409) },
      },
      handler: async (req) => {
        const actor = userOf(req);
        await service.deleteUser(ctx, actor, req.params.id);
        return { message: service.TEXTS.deleted };
      },
    });
  };
}
