import type { Selectable } from 'kysely';
import type { Db } from '../../db/index.ts';
import type { StaffRolesTable } from '../../db/types.ts';

/** Staff roles and who holds them; the session lookup joins the same rows (users/users.repo.ts). */

/** A role and how many accounts (not deleted) hold it. */
export type RoleRow = Pick<Selectable<StaffRolesTable>, 'id' | 'name' | 'permissions'> & { members: number };

export async function listRoles(db: Db): Promise<RoleRow[]> {
  const rows = await db
    .selectFrom('staff_roles')
    .leftJoin('users', (j) => j.onRef('users.role_id', '=', 'staff_roles.id').on('users.deleted_at', 'is', null))
    .select(['staff_roles.id', 'staff_roles.name', 'staff_roles.permissions'])
    .select((eb) => eb.fn.count<number | string>('users.id').as('members'))
    .groupBy(['staff_roles.id', 'staff_roles.name', 'staff_roles.permissions'])
    .orderBy('staff_roles.name_lower')
    .execute();
  return rows.map((r) => ({ ...r, members: Number(r.members) }));
}

export async function findRole(db: Db, id: number): Promise<RoleRow | undefined> {
  return (await listRoles(db)).find((r) => r.id === id);
}

/** The owner(s) and everyone with a role, not deleted. */
export function listStaff(db: Db) {
  return db
    .selectFrom('users')
    .leftJoin('staff_roles', 'staff_roles.id', 'users.role_id')
    .select(['users.id', 'users.username', 'users.is_admin', 'users.role_id', 'staff_roles.name as role'])
    .where('users.deleted_at', 'is', null)
    .where((eb) => eb.or([eb('users.is_admin', '=', 1), eb('users.role_id', 'is not', null)]))
    .orderBy('users.is_admin', 'desc')
    .orderBy('users.username_lower')
    .execute();
}

export async function insertRole(db: Db, name: string, permissions: string, now: number): Promise<number> {
  const row = await db
    .insertInto('staff_roles')
    .values({ name, name_lower: name.toLowerCase(), permissions, created_at: now, updated_at: now })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

export async function updateRole(db: Db, id: number, name: string, permissions: string, now: number): Promise<boolean> {
  const res = await db
    .updateTable('staff_roles')
    .set({ name, name_lower: name.toLowerCase(), permissions, updated_at: now })
    .where('id', '=', id)
    .executeTakeFirst();
  return Number(res.numUpdatedRows) > 0;
}

/** Takes the role from its holders, then removes it. */
export async function deleteRole(db: Db, id: number): Promise<boolean> {
  await db.updateTable('users').set({ role_id: null }).where('role_id', '=', id).execute();
  const res = await db.deleteFrom('staff_roles').where('id', '=', id).executeTakeFirst();
  return Number(res.numDeletedRows) > 0;
}

export function nameTaken(db: Db, name: string, exceptId?: number) {
  let q = db.selectFrom('staff_roles').select('id').where('name_lower', '=', name.toLowerCase());
  if (exceptId !== undefined) q = q.where('id', '!=', exceptId);
  return q.executeTakeFirst();
}

export function setUserRole(db: Db, userId: number, roleId: number | null) {
  return db.updateTable('users').set({ role_id: roleId }).where('id', '=', userId).where('deleted_at', 'is', null).executeTakeFirst();
}
