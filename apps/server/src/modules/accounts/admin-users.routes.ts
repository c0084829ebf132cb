import {
  AdminUser,
  AdminUserList,
  AdminUserPage,
  AdminUserQuery,
  AdminUserUpdateBody,
  BalanceChangeBody,
  BalanceChangeResponse,
  IdParams,
  MessageResponse,
  UserCard,
} from '@kubik/contract';
import { z } from 'zod';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppContext } from '../../context.ts';
import { userOf } from '../../plugins/auth.ts';
import { sessionTokenOf } from '../users/session-tokens.ts';
import * as service from './admin-users.service.ts';
import { errorReplies } from '../../lib/errors.ts';

const tags = ['Пользователи (администратор)'];

export function adminUsersRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  return async (app) => {
    app.get('/api/user/all', {
      config: { access: 'admin', permission: 'players.view' },
      schema: {
        tags,
        summary:
          'Пользователи, кроме удалённых. Без параметров — весь список (как в спецификации); с q, page или per_page — страница поиска по имени, почте или номеру: { users, page, per_page, total }, новые первыми',
        querystring: AdminUserQuery,
        response: { 200: z.union([AdminUserList, AdminUserPage]), ...errorReplies(400, 401, 403) },
      },
      handler: async (req) => service.findUsers(ctx, req.query),
    });

    app.get('/api/admin/users/:id', {
      config: { access: 'admin', permission: 'players.view' },
      schema: {
        tags,
        summary: 'Карточка игрока: аккаунт, заказы с состоянием выдачи, пополнения, привилегии, операции по балансу и сеансы',
        params: IdParams,
        response: { 200: UserCard, ...errorReplies(400, 401, 403, 404) },
      },
      handler: async (req) => service.userCard(ctx, req.params.id),
    });

    app.post('/api/admin/users/:id/balance', {
      config: { access: 'admin', permission: 'players.balance' },
      schema: {
        tags,
        summary:
          'Изменить баланс на сумму (в рублях, «+» — начислить, «−» — списать) с обязательным комментарием; в журнал операций пишется adjustment с комментарием. Баланс не уходит ниже нуля (409).',
        params: IdParams,
        body: BalanceChangeBody,
        response: { 200: BalanceChangeResponse, ...errorReplies(400, 401, 403, 404, 409) },
      },
      handler: async (req) => service.changeBalance(ctx, userOf(req), req.params.id, req.body),
    });

    app.put('/api/user/:id', {
      config: { access: 'admin', permission: 'players.balance' },
      schema: {
        tags,
        summary:
          'Изменить пользователя. Меняется только присланное; пустой пароль оставляет прежний; новый баланс проводится через журнал операций.',
        params: IdParams,
        body: AdminUserUpdateBody,
        response: { 200: AdminUser, ...errorReplies(400, 401, 403, 404, 409) },
      },
      handler: async (req) => {
        const actor = userOf(req);
        return service.updateUser(ctx, actor, sessionTokenOf(req.headers) ?? null, req.params.id, req.body);
      },
    });

    app.delete('/api/user/:id', {
      config: { access: 'admin', permission: 'players.balance' },
      schema: {
        tags,
        summary: 'Удалить пользователя: покупки и операции сохраняются, имя и почта освобождаются, сеансы завершаются',
        params: IdParams,
        response: { 200: MessageResponse, ...errorReplies(400, 401, 403, 404, 409) },
      },
      handler: async (req) => {
        const actor = userOf(req);
        await service.deleteUser(ctx, actor, req.params.id);
        return { message: service.TEXTS.deleted };
      },
    });
  };
}
