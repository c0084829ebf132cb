import type { Insertable, Selectable } from 'kysely';
import type { Db } from '../../db/index.ts';
import type { KitClaimsTable, PrivilegePurchasesTable, PrivilegesTable } from './privileges.tables.ts';

export type PrivilegeRow = Selectable<PrivilegesTable>;

/** The player's privilege that has not ended (at most one: a partial unique index), even one past its end the expiry job has not reached. */
export function runningRow(trx: Db, userId: number): Promise<PrivilegeRow | undefined> {
  return trx.selectFrom('privileges').selectAll().where('user_id', '=', userId).where('ended_at', 'is', null).executeTakeFirst();
}

export function findPrivilege(trx: Db, id: number): Promise<PrivilegeRow | undefined> {
  return trx.selectFrom('privileges').selectAll().where('id', '=', id).executeTakeFirst();
}

/** The player's latest privileges, newest first. */
export function recentPrivileges(db: Db, userId: number, limit: number): Promise<PrivilegeRow[]> {
  return db.selectFrom('privileges').selectAll().where('user_id', '=', userId).orderBy('id', 'desc').limit(limit).execute();
}

/** Per kit the player claimed: the last claim's id and time. */
export function lastKitClaims(db: Db, userId: number) {
  return db
    .selectFrom('kit_claims')
    .select(['kit_id', (eb) => eb.fn.max<number>('id').as('claim_id'), (eb) => eb.fn.max<number>('claimed_at').as('last')])
    .where('user_id', '=', userId)
    .groupBy('kit_id')
    .execute();
}

/** When the player last claimed this kit; null when never. */
export async function lastKitClaimAt(trx: Db, userId: number, kitId: number): Promise<number | null> {
  const last = await trx
    .selectFrom('kit_claims')
    .select((eb) => eb.fn.max<number>('claimed_at').as('last'))
    .where('user_id', '=', userId)
    .where('kit_id', '=', kitId)
    .executeTakeFirst();
  return last?.last == null ? null : Number(last.last);
}

export async function insertKitClaim(trx: Db, values: Insertable<KitClaimsTable>): Promise<number> {
  const claim = await trx.insertInto('kit_claims').values(values).returning('id').executeTakeFirstOrThrow();
  return claim.id;
}

/** The privilege running at `now` that ends last. */
export function currentPrivilege(db: Db, userId: number, now: number) {
  return db
    .selectFrom('privileges')
    .select(['id', 'tier_title', 'expires_at'])
    .where('user_id', '=', userId)
    .where('ended_at', 'is', null)
    .where('starts_at', '<=', now)
    .where('expires_at', '>', now)
    .orderBy('expires_at', 'desc')
    .limit(1)
    .executeTakeFirst();
}

/** The tiers a player holds at `now` (capes given to a tier). */
export async function heldTierIds(db: Db, userId: number, now: number): Promise<number[]> {
  const rows = await db
    .selectFrom('privileges')
    .select('tier_id')
    .where('user_id', '=', userId)
    .where('ended_at', 'is', null)
    .where('starts_at', '<=', now)
    .where('expires_at', '>', now)
    .execute();
  return rows.map((r) => r.tier_id);
}

/** Tier purchases by id, with their privilege's title. */
export function purchasesWithTitles(db: Db, ids: number[]) {
  return db
    .selectFrom('privilege_purchases as pp')
    .innerJoin('privileges as p', 'p.id', 'pp.privilege_id')
    .select(['pp.id', 'pp.privilege_id', 'pp.months', 'pp.replaced_id', 'pp.created_at', 'p.tier_title'])
    .where('pp.id', 'in', ids)
    .execute();
}

/** When each purchase of these privileges was made. */
export function purchaseTimes(db: Db, privilegeIds: number[]) {
  return db.selectFrom('privilege_purchases').select(['privilege_id', 'created_at']).where('privilege_id', 'in', privilegeIds).execute();
}

export async function insertPurchase(trx: Db, values: Insertable<PrivilegePurchasesTable>): Promise<number> {
  const row = await trx.insertInto('privilege_purchases').values(values).returning('id').executeTakeFirstOrThrow();
  return row.id;
}

/** Privileges with their holder's name, as the admin lists them. */
function withHolders(db: Db) {
  return db.selectFrom('privileges').innerJoin('users', 'users.id', 'privileges.user_id').selectAll('privileges').select('users.username');
}

export function listWithHolders(db: Db, filter: { ended?: boolean; username?: string }, limit: number) {
  let q = withHolders(db);
  if (filter.ended === false) q = q.where('privileges.ended_at', 'is', null);
  if (filter.ended === true) q = q.where('privileges.ended_at', 'is not', null);
  if (filter.username) q = q.where('users.username_lower', '=', filter.username.toLowerCase());
  return q.orderBy('privileges.id', 'desc').limit(limit).execute();
}

export function findWithHolder(db: Db, id: number) {
  return withHolders(db).where('privileges.id', '=', id).executeTakeFirst();
}

/** A live account by name, ignoring case: whom the admin grants a tier. */
export function findLivePlayer(trx: Db, username: string) {
  return trx
    .selectFrom('users')
    .select(['id', 'username'])
    .where('username_lower', '=', username.toLowerCase())
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
}

/** The admin's new end for a running privilege; the reminder is due again for it. */
export async function moveEnd(trx: Db, id: number, expiresAt: number, now: number): Promise<void> {
  await trx
    .updateTable('privileges')
    .set({ expires_at: expiresAt, reminded_at: null, updated_at: now })
    .where('id', '=', id)
    .where('ended_at', 'is', null)
    .execute();
}

/** Ends the privilege unless it has ended already: whether this call ended it (only one caller can). */
export async function markEnded(
  trx: Db,
  id: number,
  reason: 'expired' | 'upgraded' | 'revoked',
  now: number,
  expiresAt?: number,
): Promise<boolean> {
  const done = await trx
    .updateTable('privileges')
    .set({ ended_at: now, end_reason: reason, updated_at: now, ...(expiresAt !== undefined && { expires_at: expiresAt }) })
    .where('id', '=', id)
    .where('ended_at', 'is', null)
    .executeTakeFirst();
  return Number(done.numUpdatedRows) === 1;
}

/** Extends a running privilege to a new end, under the tier's title now; the reminder is due again for it. */
export async function extend(trx: Db, id: number, expiresAt: number, tierTitle: string, now: number): Promise<void> {
  await trx
    .updateTable('privileges')
    .set({ expires_at: expiresAt, tier_title: tierTitle, reminded_at: null, updated_at: now })
    .where('id', '=', id)
    .execute();
}

export async function insertPrivilege(trx: Db, values: Insertable<PrivilegesTable>): Promise<number> {
  const row = await trx.insertInto('privileges').values(values).returning('id').executeTakeFirstOrThrow();
  return row.id;
}

/** Privileges whose end has come and that have not ended, the earliest end first. */
export function duePrivileges(db: Db, now: number, limit: number): Promise<PrivilegeRow[]> {
  return db
    .selectFrom('privileges')
    .selectAll()
    .where('ended_at', 'is', null)
    .where('expires_at', '<=', now)
    .orderBy('expires_at')
    .limit(limit)
    .execute();
}

/** Running privileges of live accounts that end within `withinMs` and whose holder has not been reminded of this end. */
export function privilegesToRemind(db: Db, now: number, withinMs: number, limit: number) {
  return db
    .selectFrom('privileges')
    .innerJoin('users', 'users.id', 'privileges.user_id')
    .select(['privileges.id', 'privileges.user_id', 'privileges.tier_title', 'privileges.expires_at', 'users.email', 'users.username'])
    .where('privileges.ended_at', 'is', null)
    .where('privileges.reminded_at', 'is', null)
    .where('privileges.expires_at', '>', now)
    .where('privileges.expires_at', '<=', now + withinMs)
    .where('users.deleted_at', 'is', null)
    .limit(limit)
    .execute();
}

/**
 * Marks the reminder of this end sent, unless it was marked, the privilege ended or its end moved
 * meanwhile: whether this call marked it (one pass on one instance sends the letter).
 */
export async function markReminded(trx: Db, id: number, expiresAt: number, now: number): Promise<boolean> {
  const marked = await trx
    .updateTable('privileges')
    .set({ reminded_at: now })
    .where('id', '=', id)
    .where('reminded_at', 'is', null)
    .where('ended_at', 'is', null)
    .where('expires_at', '=', expiresAt)
    .executeTakeFirst();
  return Number(marked.numUpdatedRows) === 1;
}
