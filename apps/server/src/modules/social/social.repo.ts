import type { Insertable, Selectable } from 'kysely';
import type { Db, DbKind } from '../../db/index.ts';
import type { UsersTable } from '../../db/types.ts';
import type { User } from '../users/users.repo.ts';
import type { SocialFlowsTable, SocialLinksTable, SocialTicketsTable } from './social.tables.ts';

export type FlowRow = Selectable<SocialFlowsTable>;

export async function insertFlow(db: Db, row: Insertable<SocialFlowsTable>, now: number): Promise<void> {
  await db.deleteFrom('social_flows').where('expires_at', '<=', now).execute();
  await db.insertInto('social_flows').values(row).execute();
}

export function findFlow(db: Db, stateHash: string): Promise<FlowRow | undefined> {
  return db.selectFrom('social_flows').selectAll().where('state_hash', '=', stateHash).executeTakeFirst();
}

/** Uses the flow up: true for the one caller whose delete removed it. */
export async function takeFlow(db: Db, stateHash: string): Promise<boolean> {
  const res = await db.deleteFrom('social_flows').where('state_hash', '=', stateHash).executeTakeFirst();
  return Number(res.numDeletedRows) === 1;
}

export type LinkRow = Pick<Selectable<SocialLinksTable>, 'provider' | 'provider_user_id' | 'display_name' | 'created_at'>;

export function linksOf(db: Db, userId: number): Promise<LinkRow[]> {
  return db
    .selectFrom('social_links')
    .select(['provider', 'provider_user_id', 'display_name', 'created_at'])
    .where('user_id', '=', userId)
    .execute();
}

export function linkOwner(db: Db, provider: string, providerUserId: string) {
  return db
    .selectFrom('social_links')
    .select('user_id')
    .where('provider', '=', provider)
    .where('provider_user_id', '=', providerUserId)
    .executeTakeFirst();
}

/** The live (not deleted) account a provider account is linked to. */
export function linkedUser(db: Db, provider: string, providerUserId: string): Promise<User | undefined> {
  return db
    .selectFrom('social_links')
    .innerJoin('users', 'users.id', 'social_links.user_id')
    .selectAll('users')
    .where('social_links.provider', '=', provider)
    .where('social_links.provider_user_id', '=', providerUserId)
    .where('users.deleted_at', 'is', null)
    .executeTakeFirst();
}

/** Inserts the link unless the provider account or this player's provider is linked already: whether it was inserted. */
export async function insertLink(db: Db, row: Omit<Insertable<SocialLinksTable>, 'id'>): Promise<boolean> {
  const res = await db
    .insertInto('social_links')
    .values(row)
    .onConflict((oc) => oc.doNothing())
    .returning('id')
    .executeTakeFirst();
  return res !== undefined;
}

export async function deleteLink(db: Db, userId: number, provider: string): Promise<boolean> {
  const res = await db.deleteFrom('social_links').where('user_id', '=', userId).where('provider', '=', provider).executeTakeFirst();
  return Number(res.numDeletedRows) === 1;
}

/**
 * The player's row, to count their ways in before an unlink; on PostgreSQL it stays locked until
 * the transaction ends, so two unlinks at once do not both see the other link still there.
 */
export function lockAccount(db: Db, kind: DbKind, userId: number) {
  let q = db.selectFrom('users').select(['id', 'password_hash']).where('id', '=', userId);
  if (kind === 'pg') q = q.forUpdate();
  return q.executeTakeFirst();
}

export async function deleteLinksOf(db: Db, userId: number): Promise<void> {
  await db.deleteFrom('social_links').where('user_id', '=', userId).execute();
  await db.deleteFrom('social_tickets').where('user_id', '=', userId).execute();
  await db.deleteFrom('social_flows').where('user_id', '=', userId).execute();
}

export type TicketRow = Selectable<SocialTicketsTable>;

export async function insertTicket(db: Db, row: Insertable<SocialTicketsTable>, now: number): Promise<void> {
  await db.deleteFrom('social_tickets').where('expires_at', '<=', now).execute();
  await db.insertInto('social_tickets').values(row).execute();
}

export function findTicket(db: Db, ticketHash: string, now: number): Promise<TicketRow | undefined> {
  return db.selectFrom('social_tickets').selectAll().where('ticket_hash', '=', ticketHash).where('expires_at', '>', now).executeTakeFirst();
}

export async function deleteTicket(db: Db, ticketHash: string): Promise<boolean> {
  const res = await db.deleteFrom('social_tickets').where('ticket_hash', '=', ticketHash).executeTakeFirst();
  return Number(res.numDeletedRows) === 1;
}

/** Counts a wrong code; false when the ticket has no tries left (then it is gone). */
export async function countAttempt(db: Db, ticketHash: string, max: number): Promise<boolean> {
  const res = await db
    .updateTable('social_tickets')
    .set((eb) => ({ attempts: eb('attempts', '+', 1) }))
    .where('ticket_hash', '=', ticketHash)
    .where('attempts', '<', max)
    .executeTakeFirst();
  if (Number(res.numUpdatedRows) === 1) return true;
  await deleteTicket(db, ticketHash);
  return false;
}

export async function setRegistration(
  db: Db,
  ticketHash: string,
  fields: { username: string; email: string; confirm_hash: string; expires_at: number; consents: string | null },
): Promise<void> {
  await db.updateTable('social_tickets').set(fields).where('ticket_hash', '=', ticketHash).where('kind', '=', 'register').execute();
}

/** The registration a letter's link confirms, used up (deleted) in the caller's transaction. */
export async function takeRegistration(trx: Db, confirmHash: string, now: number): Promise<TicketRow | undefined> {
  const row = await trx
    .selectFrom('social_tickets')
    .selectAll()
    .where('confirm_hash', '=', confirmHash)
    .where('kind', '=', 'register')
    .where('expires_at', '>', now)
    .executeTakeFirst();
  if (!row) return undefined;
  return (await deleteTicket(trx, row.ticket_hash)) ? row : undefined;
}

/** The account a confirmed registration makes. */
export function insertUser(db: Db, values: Insertable<UsersTable>): Promise<User> {
  return db.insertInto('users').values(values).returningAll().executeTakeFirstOrThrow();
}
