import { PERMISSIONS, type Permission } from '@kubik/contract';
import { forbidden } from '../../lib/errors.ts';
import type { User } from './users.repo.ts';

/**
 * Staff rights, read with the session: the owner (`is_admin`) holds every permission,
 * a staff member those of their role (`users.role_id` → staff_roles), a player none.
 */
export interface StaffRights {
  /** Sorted in the contract's order. */
  permissions: readonly Permission[];
  /** The role's name, or null (the owner, players). */
  role: string | null;
}

const KNOWN = new Set<string>(PERMISSIONS);
const OWNER: StaffRights = Object.freeze({ permissions: Object.freeze([...PERMISSIONS]), role: null });
const NONE: StaffRights = Object.freeze({ permissions: Object.freeze([]), role: null });

/** Parses a role's stored permission list; unknown or broken entries are dropped, never granted. */
export function parsePermissions(json: string | null | undefined): Permission[] {
  if (!json) return [];
  try {
    const list: unknown = JSON.parse(json);
    if (!Array.isArray(list)) return [];
    const set = new Set(list.filter((p): p is Permission => typeof p === 'string' && KNOWN.has(p)));
    return PERMISSIONS.filter((p) => set.has(p));
  } catch {
    return [];
  }
}

export function rightsOf(
  user: Pick<User, 'is_admin' | 'role_id'>,
  role?: { name: string | null; permissions: string | null },
): StaffRights {
  if (user.is_admin === 1) return OWNER;
  if (user.role_id == null || !role || role.name == null) return NONE;
  return Object.freeze({ permissions: Object.freeze(parsePermissions(role.permissions)), role: role.name });
}

/** Staff: the owner, or anyone with a role (may enter the admin area; two-factor rules apply). */
export function isStaff(user: Pick<User, 'is_admin' | 'role_id'>): boolean {
  return user.is_admin === 1 || user.role_id != null;
}

/**
 * Only the owner changes the owner's and staff members' accounts (their name, address, password,
 * balance, ban, second factor, existence) and gives or takes owner rights: a staff member with
 * `players.balance` could otherwise take over the owner's account or raise their own rights.
 */
export function assertMayManage(actor: Pick<User, 'is_admin'>, target: Pick<User, 'is_admin' | 'role_id'>): void {
  if (actor.is_admin === 1) return;
  if (isStaff(target)) throw forbidden(STAFF_TEXTS.ownerOnly, { code: 'owner_only' });
}

export const STAFF_TEXTS = {
  ownerOnly: 'Менять аккаунты владельца и сотрудников может только владелец сайта',
  ownerRights: 'Назначать владельцев может только владелец сайта',
};
