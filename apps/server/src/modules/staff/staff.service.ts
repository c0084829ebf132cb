import {
  PERMISSION_LABELS,
  PERMISSIONS,
  type PermissionList,
  type StaffRole,
  type StaffRoleBody,
  type StaffRoleList,
} from '@kubik/contract';
import type { AppContext } from '../../context.ts';
import { conflict, isUniqueViolation, notFound } from '../../lib/errors.ts';
import { recordAudit } from '../audit/audit.service.ts';
import { parsePermissions } from '../users/staff.ts';
import { findActiveUser, type User } from '../users/users.repo.ts';
import * as repo from './staff.repo.ts';

export const STAFF_ROUTE_TEXTS = {
  roleNotFound: 'Роль не найдена',
  roleExists: 'Роль с таким названием уже есть',
  userNotFound: 'Пользователь не найден',
  ownerHasAll: 'У владельца и так есть все права: роль ему не нужна',
  deleted: 'Роль удалена',
};

const toRole = (r: repo.RoleRow): StaffRole => ({
  id: r.id,
  name: r.name,
  permissions: parsePermissions(r.permissions),
  members: r.members,
});

export function permissionList(): PermissionList {
  return { permissions: PERMISSIONS.map((key) => ({ key, ...PERMISSION_LABELS[key] })) };
}

export async function listRoles(ctx: AppContext): Promise<StaffRoleList> {
  const [roles, staff] = await Promise.all([repo.listRoles(ctx.db), repo.listStaff(ctx.db)]);
  return {
    roles: roles.map(toRole),
    staff: staff.map((s) => ({ id: s.id, username: s.username, owner: s.is_admin === 1, role_id: s.role_id, role: s.role })),
  };
}

/** Stored in the contract's order, without repeats. */
const stored = (permissions: readonly string[]) => JSON.stringify(PERMISSIONS.filter((p) => permissions.includes(p)));

const taken = () => conflict(STAFF_ROUTE_TEXTS.roleExists, { code: 'role_exists', field: 'name' });

export async function createRole(ctx: AppContext, actor: User, body: StaffRoleBody): Promise<StaffRole> {
  try {
    const id = await ctx.db.transaction().execute(async (trx) => {
      if (await repo.nameTaken(trx, body.name)) throw taken();
      const id = await repo.insertRole(trx, body.name, stored(body.permissions), Date.now());
      await recordAudit(trx, {
        actorId: actor.id,
        action: 'role.create',
        entity: 'role',
        entityId: id,
        after: { name: body.name, permissions: parsePermissions(stored(body.permissions)) },
      });
      return id;
    });
    return toRole((await repo.findRole(ctx.db, id))!);
  } catch (err) {
    if (isUniqueViolation(err)) throw taken();
    throw err;
  }
}

export async function updateRole(ctx: AppContext, actor: User, id: number, body: StaffRoleBody): Promise<StaffRole> {
  try {
    await ctx.db.transaction().execute(async (trx) => {
      const before = await repo.findRole(trx, id);
      if (!before) throw notFound(STAFF_ROUTE_TEXTS.roleNotFound, { code: 'role_not_found' });
      if (await repo.nameTaken(trx, body.name, id)) throw taken();
      await repo.updateRole(trx, id, body.name, stored(body.permissions), Date.now());
      await recordAudit(trx, {
        actorId: actor.id,
        action: 'role.update',
        entity: 'role',
        entityId: id,
        before: { name: before.name, permissions: parsePermissions(before.permissions) },
        after: { name: body.name, permissions: parsePermissions(stored(body.permissions)) },
      });
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw taken();
    throw err;
  }
  return toRole((await repo.findRole(ctx.db, id))!);
}

export async function deleteRole(ctx: AppContext, actor: User, id: number): Promise<void> {
  await ctx.db.transaction().execute(async (trx) => {
    const before = await repo.findRole(trx, id);
    if (!before) throw notFound(STAFF_ROUTE_TEXTS.roleNotFound, { code: 'role_not_found' });
    await repo.deleteRole(trx, id);
    await recordAudit(trx, {
      actorId: actor.id,
      action: 'role.delete',
      entity: 'role',
      entityId: id,
      before: { name: before.name, permissions: parsePermissions(before.permissions), members: before.members },
    });
  });
}

/** Gives a player a role (they become staff) or takes it (null); the owner needs none. */
export async function setUserRole(ctx: AppContext, actor: User, userId: number, roleId: number | null) {
  return ctx.db.transaction().execute(async (trx) => {
    const user = await findActiveUser(trx, ctx.dbKind, userId);
    if (!user) throw notFound(STAFF_ROUTE_TEXTS.userNotFound);
    if (user.is_admin === 1 && roleId !== null) throw conflict(STAFF_ROUTE_TEXTS.ownerHasAll, { field: 'role_id' });
    const role = roleId === null ? undefined : await repo.findRole(trx, roleId);
    if (roleId !== null && !role) throw notFound(STAFF_ROUTE_TEXTS.roleNotFound, { code: 'role_not_found', field: 'role_id' });
    const beforeRole = user.role_id === null ? undefined : await repo.findRole(trx, user.role_id);
    await repo.setUserRole(trx, userId, roleId);
    if (user.role_id !== roleId)
      await recordAudit(trx, {
        actorId: actor.id,
        action: 'user.role',
        entity: 'user',
        entityId: userId,
        before: { username: user.username, role: beforeRole?.name ?? null },
        after: { username: user.username, role: role?.name ?? null },
      });
    return { id: user.id, username: user.username, role_id: roleId, role: role?.name ?? null };
  });
}
