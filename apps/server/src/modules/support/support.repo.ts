import { SUPPORT_LIMITS, type SupportField, type SupportLinkKind } from '@kubik/contract';
import type { Insertable, Selectable, Updateable } from 'kysely';
import type { Db, DbKind } from '../../db/index.ts';
import type {
  SupportAttachmentsTable,
  SupportCannedTable,
  SupportCategoriesTable,
  SupportMessagesTable,
  SupportTicketsTable,
} from './support.tables.ts';

export type CategoryRow = Selectable<SupportCategoriesTable>;
export type TicketRow = Selectable<SupportTicketsTable>;
export type MessageRow = Selectable<SupportMessagesTable>;
export type AttachmentInfo = Omit<Selectable<SupportAttachmentsTable>, 'bytes'>;
export type CannedRow = Selectable<SupportCannedTable>;

const ATTACHMENT_INFO = ['id', 'uploader_id', 'ticket_id', 'message_id', 'name', 'type', 'size', 'width', 'height', 'created_at'] as const;

// ---- Categories

export function listCategories(db: Db, enabledOnly: boolean): Promise<CategoryRow[]> {
  let q = db.selectFrom('support_categories').selectAll().where('deleted_at', 'is', null);
  if (enabledOnly) q = q.where('enabled', '=', 1);
  return q.orderBy('position').orderBy('id').execute();
}

export function findCategory(db: Db, id: number): Promise<CategoryRow | undefined> {
  return db.selectFrom('support_categories').selectAll().where('id', '=', id).where('deleted_at', 'is', null).executeTakeFirst();
}

export async function insertCategory(db: Db, row: Insertable<SupportCategoriesTable>): Promise<number> {
  const r = await db.insertInto('support_categories').values(row).returning('id').executeTakeFirstOrThrow();
  return Number(r.id);
}

export async function updateCategory(db: Db, id: number, set: Updateable<SupportCategoriesTable>): Promise<boolean> {
  const r = await db.updateTable('support_categories').set(set).where('id', '=', id).where('deleted_at', 'is', null).executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

export function parseFields(json: string): SupportField[] {
  try {
    const list: unknown = JSON.parse(json);
    return Array.isArray(list) ? (list as SupportField[]) : [];
  } catch {
    return [];
  }
}

// ---- Tickets

/** On PostgreSQL, locks the player's row: the count of their open tickets then holds until commit (SQLite serialises writers). */
export async function lockUser(trx: Db, kind: DbKind, userId: number): Promise<void> {
  if (kind === 'pg') await trx.selectFrom('users').select('id').where('id', '=', userId).forUpdate().execute();
}

export async function countOpenQuestions(db: Db, userId: number): Promise<number> {
  const r = await db
    .selectFrom('support_tickets')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('user_id', '=', userId)
    .where('kind', '=', 'question')
    .where('state', '!=', 'closed')
    .executeTakeFirstOrThrow();
  return Number(r.n);
}

export async function insertTicket(db: Db, row: Insertable<SupportTicketsTable>): Promise<number> {
  const r = await db.insertInto('support_tickets').values(row).returning('id').executeTakeFirstOrThrow();
  return Number(r.id);
}

export function findTicket(db: Db, id: number): Promise<TicketRow | undefined> {
  return db.selectFrom('support_tickets').selectAll().where('id', '=', id).executeTakeFirst();
}

export function findAppealByBan(db: Db, banId: number): Promise<TicketRow | undefined> {
  return db.selectFrom('support_tickets').selectAll().where('kind', '=', 'appeal').where('ban_id', '=', banId).executeTakeFirst();
}

/**
 * Moves a ticket on, only from the states given (a conditional update: of two racing changes one
 * wins, the other finds the ticket moved). Returns whether it moved.
 */
export async function moveTicket(db: Db, id: number, from: readonly string[], set: Updateable<SupportTicketsTable>): Promise<boolean> {
  const r = await db.updateTable('support_tickets').set(set).where('id', '=', id).where('state', 'in', from).executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

export async function setTicket(db: Db, id: number, set: Updateable<SupportTicketsTable>): Promise<void> {
  await db.updateTable('support_tickets').set(set).where('id', '=', id).execute();
}

export interface TicketListRow extends TicketRow {
  category_name: string | null;
  category_icon: string | null;
  player_name: string;
  assignee_name: string | null;
}

function ticketList(db: Db) {
  return db
    .selectFrom('support_tickets as t')
    .innerJoin('users as p', 'p.id', 't.user_id')
    .leftJoin('support_categories as c', 'c.id', 't.category_id')
    .leftJoin('users as a', 'a.id', 't.assignee_id');
}

export async function listTickets(
  db: Db,
  filter: {
    userId?: number;
    states?: readonly string[];
    kind?: string;
    categoryId?: number;
    assignee?: number | 'none';
    q?: string;
  },
  page: number,
): Promise<{ rows: TicketListRow[]; total: number }> {
  let q = ticketList(db);
  if (filter.userId !== undefined) q = q.where('t.user_id', '=', filter.userId);
  if (filter.states) q = q.where('t.state', 'in', filter.states);
  if (filter.kind) q = q.where('t.kind', '=', filter.kind);
  if (filter.categoryId !== undefined) q = q.where('t.category_id', '=', filter.categoryId);
  if (filter.assignee === 'none') q = q.where('t.assignee_id', 'is', null);
  else if (filter.assignee !== undefined) q = q.where('t.assignee_id', '=', filter.assignee);
  if (filter.q) {
    // A name from its start, or any part of the subject; % and _ typed are taken literally.
    const like = filter.q.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`);
    q = q.where((eb) => eb.or([eb('p.username_lower', 'like', `${like}%`), eb(eb.fn('lower', ['t.subject']), 'like', `%${like}%`)]));
  }
  const total = await q.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  const rows = await q
    .selectAll('t')
    .select(['c.name as category_name', 'c.icon as category_icon', 'p.username as player_name', 'a.username as assignee_name'])
    .orderBy('t.updated_at', 'desc')
    .orderBy('t.id', 'desc')
    .limit(SUPPORT_LIMITS.pageSize)
    .offset((page - 1) * SUPPORT_LIMITS.pageSize)
    .execute();
  return { rows: rows as TicketListRow[], total: Number(total.n) };
}

export async function findTicketWithNames(db: Db, id: number): Promise<(TicketListRow & { player_email: string }) | undefined> {
  const row = await ticketList(db)
    .selectAll('t')
    .select([
      'c.name as category_name',
      'c.icon as category_icon',
      'p.username as player_name',
      'p.email as player_email',
      'a.username as assignee_name',
    ])
    .where('t.id', '=', id)
    .executeTakeFirst();
  return row as (TicketListRow & { player_email: string }) | undefined;
}

/** Open tickets no staff answered yet (the admin's count). */
export async function countAwaitingStaff(db: Db): Promise<number> {
  const r = await db
    .selectFrom('support_tickets')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('state', '=', 'open')
    .executeTakeFirstOrThrow();
  return Number(r.n);
}

// ---- Messages and attachments

export async function insertMessage(db: Db, row: Insertable<SupportMessagesTable>): Promise<number> {
  const r = await db.insertInto('support_messages').values(row).returning('id').executeTakeFirstOrThrow();
  return Number(r.id);
}

export interface MessageWithAuthor extends MessageRow {
  author_name: string | null;
}

export function messagesOf(db: Db, ticketId: number, withNotes: boolean): Promise<MessageWithAuthor[]> {
  let q = db
    .selectFrom('support_messages as m')
    .leftJoin('users as u', 'u.id', 'm.author_id')
    .selectAll('m')
    .select('u.username as author_name')
    .where('m.ticket_id', '=', ticketId);
  if (!withNotes) q = q.where('m.internal', '=', 0);
  return q.orderBy('m.id').execute();
}

export function attachmentsOfTicket(db: Db, ticketId: number): Promise<AttachmentInfo[]> {
  return db
    .selectFrom('support_attachments')
    .select(ATTACHMENT_INFO)
    .where('ticket_id', '=', ticketId)
    .where('message_id', 'is not', null)
    .orderBy('id')
    .execute();
}

export async function insertAttachment(db: Db, row: Insertable<SupportAttachmentsTable>): Promise<number> {
  const r = await db.insertInto('support_attachments').values(row).returning('id').executeTakeFirstOrThrow();
  return Number(r.id);
}

export async function countPendingUploads(db: Db, uploaderId: number): Promise<number> {
  const r = await db
    .selectFrom('support_attachments')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('uploader_id', '=', uploaderId)
    .where('message_id', 'is', null)
    .executeTakeFirstOrThrow();
  return Number(r.n);
}

/**
 * Attaches the uploader's own pending pictures to a message: all of them or none (the caller's
 * transaction is rolled back when fewer than asked were theirs and still pending).
 */
export async function claimUploads(
  db: Db,
  uploaderId: number,
  ids: readonly number[],
  ticketId: number,
  messageId: number,
): Promise<number> {
  if (ids.length === 0) return 0;
  const r = await db
    .updateTable('support_attachments')
    .set({ ticket_id: ticketId, message_id: messageId })
    .where('id', 'in', ids)
    .where('uploader_id', '=', uploaderId)
    .where('message_id', 'is', null)
    .executeTakeFirst();
  return Number(r.numUpdatedRows);
}

export interface AttachmentAccess extends AttachmentInfo {
  ticket_user_id: number | null;
  ticket_kind: string | null;
  internal: number | null;
}

export function findAttachment(db: Db, id: number): Promise<AttachmentAccess | undefined> {
  return db
    .selectFrom('support_attachments as f')
    .leftJoin('support_tickets as t', 't.id', 'f.ticket_id')
    .leftJoin('support_messages as m', 'm.id', 'f.message_id')
    .select(ATTACHMENT_INFO.map((c) => `f.${c}` as const))
    .select(['t.user_id as ticket_user_id', 't.kind as ticket_kind', 'm.internal as internal'])
    .where('f.id', '=', id)
    .executeTakeFirst();
}

export async function attachmentBytes(db: Db, id: number): Promise<Buffer | undefined> {
  const r = await db.selectFrom('support_attachments').select('bytes').where('id', '=', id).executeTakeFirst();
  return r ? Buffer.from(r.bytes) : undefined;
}

/** Forgets pictures uploaded before `before` and never sent. */
export async function deleteStaleUploads(db: Db, before: number): Promise<number> {
  const r = await db.deleteFrom('support_attachments').where('message_id', 'is', null).where('created_at', '<', before).executeTakeFirst();
  return Number(r.numDeletedRows);
}

/** A player's account was erased: their tickets go with what was written and attached in them. */
export async function deleteTicketsOf(trx: Db, userId: number): Promise<void> {
  const ids = (await trx.selectFrom('support_tickets').select('id').where('user_id', '=', userId).execute()).map((r) => r.id);
  if (ids.length) {
    await trx.deleteFrom('support_attachments').where('ticket_id', 'in', ids).execute();
    await trx.deleteFrom('support_messages').where('ticket_id', 'in', ids).execute();
    await trx.deleteFrom('support_tickets').where('id', 'in', ids).execute();
  }
  await trx.deleteFrom('support_attachments').where('uploader_id', '=', userId).where('message_id', 'is', null).execute();
  await trx.updateTable('support_tickets').set({ assignee_id: null }).where('assignee_id', '=', userId).execute();
}

// ---- Canned answers

export function listCanned(db: Db): Promise<CannedRow[]> {
  return db.selectFrom('support_canned').selectAll().orderBy('title').orderBy('id').execute();
}

export function findCanned(db: Db, id: number): Promise<CannedRow | undefined> {
  return db.selectFrom('support_canned').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function insertCanned(db: Db, row: Insertable<SupportCannedTable>): Promise<number> {
  const r = await db.insertInto('support_canned').values(row).returning('id').executeTakeFirstOrThrow();
  return Number(r.id);
}

export async function updateCanned(db: Db, id: number, set: Updateable<SupportCannedTable>): Promise<void> {
  await db.updateTable('support_canned').set(set).where('id', '=', id).execute();
}

export async function deleteCanned(db: Db, id: number): Promise<void> {
  await db.deleteFrom('support_canned').where('id', '=', id).execute();
}

// ---- Staff

/** The owner and staff whose role holds `support`, by name (deleted accounts left out). */
export async function supportStaff(db: Db): Promise<{ id: number; username: string }[]> {
  const rows = await db
    .selectFrom('users as u')
    .leftJoin('staff_roles as r', 'r.id', 'u.role_id')
    .select(['u.id', 'u.username', 'u.is_admin', 'r.permissions'])
    .where('u.deleted_at', 'is', null)
    .where((eb) => eb.or([eb('u.is_admin', '=', 1), eb('u.role_id', 'is not', null)]))
    .orderBy('u.username_lower')
    .execute();
  return rows.filter((r) => r.is_admin === 1 || holdsSupport(r.permissions)).map((r) => ({ id: r.id, username: r.username }));
}

function holdsSupport(json: string | null): boolean {
  try {
    const list: unknown = JSON.parse(json ?? '[]');
    return Array.isArray(list) && list.includes('support');
  } catch {
    return false;
  }
}

export async function userContact(db: Db, id: number): Promise<{ id: number; username: string; email: string } | undefined> {
  return db.selectFrom('users').select(['id', 'username', 'email']).where('id', '=', id).where('deleted_at', 'is', null).executeTakeFirst();
}

// ---- What a ticket may be about: the player's own orders, deliveries and top-ups

export interface LinkRow {
  kind: SupportLinkKind;
  id: string;
  created_at: number;
  what: string;
  amount: number | null;
}

/** The player's latest of each kind, newest first. */
export async function linkChoices(db: Db, userId: number, limit = 15): Promise<LinkRow[]> {
  const [orders, deliveries, payments] = await Promise.all([
    db
      .selectFrom('shop_orders')
      .select(['id', 'item_name', 'quantity', 'total', 'created_at'])
      .where('user_id', '=', userId)
      .orderBy('id', 'desc')
      .limit(limit)
      .execute(),
    db
      .selectFrom('deliveries')
      .select(['id', 'label', 'created_at'])
      .where('user_id', '=', userId)
      .orderBy('id', 'desc')
      .limit(limit)
      .execute(),
    db
      .selectFrom('payments')
      .select(['id', 'amount', 'created_at'])
      .where('user_id', '=', userId)
      .orderBy('created_at', 'desc')
      .limit(limit)
      .execute(),
  ]);
  return [
    ...orders.map((o) => ({
      kind: 'order' as const,
      id: String(o.id),
      created_at: Number(o.created_at),
      what: `${o.item_name} × ${o.quantity}`,
      amount: Number(o.total),
    })),
    ...deliveries.map((d) => ({
      kind: 'delivery' as const,
      id: String(d.id),
      created_at: Number(d.created_at),
      what: d.label,
      amount: null,
    })),
    ...payments.map((p) => ({ kind: 'payment' as const, id: p.id, created_at: Number(p.created_at), what: '', amount: Number(p.amount) })),
  ];
}

/** One of the player's own, or undefined (another player's is not told apart from none). */
export async function ownLink(db: Db, userId: number, kind: SupportLinkKind, id: string): Promise<LinkRow | undefined> {
  if (kind === 'payment') {
    const p = await db
      .selectFrom('payments')
      .select(['id', 'amount', 'created_at'])
      .where('id', '=', id)
      .where('user_id', '=', userId)
      .executeTakeFirst();
    return p && { kind, id: p.id, created_at: Number(p.created_at), what: '', amount: Number(p.amount) };
  }
  if (!/^[1-9][0-9]{0,9}$/.test(id) || Number(id) > 2_147_483_647) return undefined;
  if (kind === 'order') {
    const o = await db
      .selectFrom('shop_orders')
      .select(['id', 'item_name', 'quantity', 'total', 'created_at'])
      .where('id', '=', Number(id))
      .where('user_id', '=', userId)
      .executeTakeFirst();
    return o && { kind, id, created_at: Number(o.created_at), what: `${o.item_name} × ${o.quantity}`, amount: Number(o.total) };
  }
  const d = await db
    .selectFrom('deliveries')
    .select(['id', 'label', 'created_at'])
    .where('id', '=', Number(id))
    .where('user_id', '=', userId)
    .executeTakeFirst();
  return d && { kind, id, created_at: Number(d.created_at), what: d.label, amount: null };
}

// ---- Bans (an appeal's): read from the bans feature's table by SQL, no import

export interface BanRow {
  id: number;
  user_id: number;
  reason: string;
  until: number | null;
  created_at: number;
  lifted_at: number | null;
}

/** The ban in force that began at `since` (users.banned_at), or undefined when it ended or another replaced it. */
export async function banInForce(db: Db, userId: number, since: number, now: number): Promise<BanRow | undefined> {
  const user = await db.selectFrom('users').select(['banned_at', 'ban_until', 'deleted_at']).where('id', '=', userId).executeTakeFirst();
  if (!user || user.deleted_at !== null || user.banned_at === null || Number(user.banned_at) !== since) return undefined;
  if (user.ban_until !== null && Number(user.ban_until) <= now) return undefined;
  const ban = await db
    .selectFrom('bans')
    .select(['id', 'user_id', 'reason', 'until', 'created_at', 'lifted_at'])
    .where('user_id', '=', userId)
    .where('lifted_at', 'is', null)
    .orderBy('id', 'desc')
    .executeTakeFirst();
  return ban && { ...ban, until: ban.until === null ? null : Number(ban.until), created_at: Number(ban.created_at) };
}

export async function findBan(db: Db, id: number): Promise<BanRow | undefined> {
  const ban = await db
    .selectFrom('bans')
    .select(['id', 'user_id', 'reason', 'until', 'created_at', 'lifted_at'])
    .where('id', '=', id)
    .executeTakeFirst();
  return (
    ban && {
      ...ban,
      until: ban.until === null ? null : Number(ban.until),
      created_at: Number(ban.created_at),
      lifted_at: ban.lifted_at === null ? null : Number(ban.lifted_at),
    }
  );
}
