import { IdParams, MessageResponse, PermissionList, StaffRole, StaffRoleBody, StaffRoleList, UserRoleBody } from '@kubik/contract';
import { z } from 'zod';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppContext } from '../../context.ts';
import { userOf } from '../../plugins/auth.ts';
import * as service from './staff.service.ts';
import { errorReplies } from '../../lib/errors.ts';

const tags = ['Сотрудники и роли (администратор)'];

/**
 * Staff roles. Seeing the roles needs the `roles` permission; creating, changing and
 * removing them and giving a role to someone is the owner's alone (`permission: 'owner'`).
 */
export function staffRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  return async (app) => {
    app.get('/api/admin/permissions', {
      config: { access: 'admin', permission: 'roles' },
      schema: {
        tags,
        summary: 'Все права, которые может дать роль, с русскими названиями',
        response: { 200: PermissionList, ...errorReplies(401, 403) },
      },
      handler: async () => service.permissionList(),
    });

    app.get('/api/admin/roles', {
      config: { access: 'admin', permission: 'roles' },
      schema: {
        tags,
        summary: 'Роли сотрудников и кто их носит (и владельцы)',
        response: { 200: StaffRoleList, ...errorReplies(401, 403) },
      },
      handler: async () => service.listRoles(ctx),
    });

    app.post('/api/admin/roles', {
      config: { access: 'admin', permission: 'owner' },
      schema: {
        tags,
        summary: 'Создать роль {name, permissions} (только владелец)',
        body: StaffRoleBody,
        response: { 200: StaffRole, ...errorReplies(400, 401, 403, 409) },
      },
      handler: async (req) => service.createRole(ctx, userOf(req), req.body),
    });

    app.put('/api/admin/roles/:id', {
      config: { access: 'admin', permission: 'owner' },
      schema: {
        tags,
        summary: 'Изменить роль: название и права (только владелец); сотрудники с ролью получают новые права сразу',
        params: IdParams,
        body: StaffRoleBody,
        response: { 200: StaffRole, ...errorReplies(400, 401, 403, 404, 409) },
      },
      handler: async (req) => service.updateRole(ctx, userOf(req), req.params.id, req.body),
    });

    app.delete('/api/admin/roles/:id', {
      config: { access: 'admin', permission: 'owner' },
      schema: {
        tags,
        summary: 'Удалить роль (только владелец); её носители становятся обычными игроками',
        params: IdParams,
        response: { 200: MessageResponse, ...errorReplies(400, 401, 403, 404) },
      },
      handler: async (req) => {
        await service.deleteRole(ctx, userOf(req), req.params.id);
        return { message: service.STAFF_ROUTE_TEXTS.deleted };
      },
    });

    app.put('/api/admin/users/:id/role', {
      config: { access: 'admin', permission: 'owner' },
      schema: {
        tags,
        summary: 'Дать пользователю роль сотрудника {role_id} или снять её {role_id: null} (только владелец)',
        params: IdParams,
        body: UserRoleBody,
        response: {
          200: z.object({ id: z.number(), username: z.string(), role_id: z.number().nullable(), role: z.string().nullable() }),
          ...errorReplies(400, 401, 403, 404, 409),
        },
      },
      handler: async (req) => service.setUserRole(ctx, userOf(req), req.params.id, req.body.role_id),
    });
  };
}
