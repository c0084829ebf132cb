import {
  SUPPORT_LIMITS,
  SUPPORT_TEXTS,
  fieldAnswerProblems,
  type AdminSupportQuery,
  type AdminSupportTicket,
  type AdminSupportTicketPage,
  type AppealView,
  type CannedAnswer,
  type SupportAttachment,
  type SupportCategory,
  type SupportCategoryBody,
  type SupportField,
  type SupportFieldDef,
  type SupportLink,
  type SupportLinkRef,
  type SupportMessage,
  type SupportTicket,
  type SupportTicketPage,
  type SupportTicketSummary,
} from '@kubik/contract';
import type { AppContext } from '../../context.ts';
import type { Db } from '../../db/index.ts';
import { badRequest, conflict, isUniqueViolation, notFound, tooMany } from '../../lib/errors.ts';
import { addressKey } from '../../lib/rate-limit.ts';
import { recordAudit } from '../audit/audit.service.ts';
import { MAIL_JOB } from '../mail/mail.outbox.ts';
import { rubles } from '../notices/notices.service.ts';
import { siteName } from '../site/site.settings.ts';
import { banInfo } from '../users/ban-status.ts';
import type { StaffRights } from '../users/staff.ts';
import type { User } from '../users/users.repo.ts';
import { siteEvent } from '../users/users.ports.ts';
import { AppealLinks, type AppealClaim } from './support.appeal-links.ts';
import { displayName, encodeAttachment, type AttachmentType } from './support.images.ts';
import { excerpt, tell, type Recipient } from './support.letters.ts';
import * as repo from './support.repo.ts';

/** Who calls: the account and its staff rights (the owner holds every one). */
export interface Caller {
  user: User;
  rights: StaffRights;
}

const mayStaff = (rights: StaffRights) => rights.permissions.includes('support');

const ticketMissing = () => notFound(SUPPORT_TEXTS.ticketNotFound, { code: 'ticket_not_found' });
const closedRefusal = () => conflict(SUPPORT_TEXTS.closed, { code: 'ticket_closed' });
const APPEAL_SUBJECT = 'Обжалование блокировки';
const DAY_MS = 86_400_000;

export const ATTACHMENT_URL = (id: number) => `/api/support/attachments/${id}`;
export const STALE_UPLOADS_JOB = 'support.stale-uploads';

export function toCategory(row: repo.CategoryRow): SupportCategory {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    icon: row.icon,
    fields: repo.parseFields(row.fields_json),
    position: row.position,
    enabled: row.enabled === 1,
  };
}

/** The owner's field definitions with stable keys: kept when given, made (f1, f2, …) for new fields. Choices are kept as given; only a list shows them. */
export function keyFields(defs: readonly SupportFieldDef[]): SupportField[] {
  const taken = new Set(defs.map((d) => d.key).filter(Boolean));
  let n = 0;
  return defs.map((d) => {
    let key = d.key;
    while (!key) {
      const candidate = `f${++n}`;
      if (!taken.has(candidate)) key = candidate;
    }
    taken.add(key);
    return { key, label: d.label, type: d.type, required: d.required ?? false, options: d.options ?? [] };
  });
}

function answerText(field: SupportField, value: unknown): string {
  if (field.type === 'checkbox') return value === true ? 'да' : 'нет';
  if (field.type === 'number') return String(typeof value === 'number' ? value : Number(String(value).trim().replace(',', '.')));
  return String(value).trim();
}

function summary(row: repo.TicketListRow): SupportTicketSummary {
  return {
    id: row.id,
    kind: row.kind as SupportTicketSummary['kind'],
    subject: row.subject,
    state: row.state as SupportTicketSummary['state'],
    category:
      row.category_id !== null && row.category_name !== null
        ? { id: row.category_id, name: row.category_name, icon: row.category_icon }
        : null,
    last_author: row.last_author as 'player' | 'staff',
    created_at: Number(row.created_at),
    updated_at: Number(row.updated_at),
    closed_at: row.closed_at === null ? null : Number(row.closed_at),
  };
}

const pages = (total: number) => Math.max(1, Math.ceil(total / SUPPORT_LIMITS.pageSize));

export function createSupportService(ctx: AppContext) {
  const db = ctx.db;
  const dateFormat = new Intl.DateTimeFormat('ru-RU', { day: '2-digit', month: '2-digit', year: 'numeric', timeZone: ctx.config.timeZone });
  const day = (ms: number) => dateFormat.format(new Date(ms));

  function linkLabel(row: repo.LinkRow): string {
    if (row.kind === 'order') return `Покупка №${row.id}: ${row.what}, ${rubles(row.amount ?? 0)} (${day(row.created_at)})`;
    if (row.kind === 'delivery') return `Выдача №${row.id}: ${row.what} (${day(row.created_at)})`;
    return `Пополнение на ${rubles(row.amount ?? 0)} от ${day(row.created_at)} (№${row.id.slice(0, 8)})`;
  }

  const appealUrl = (token: string) => `${ctx.config.publicUrl}/support/appeal#${token}`;

  /** What telling someone needs, read before a transaction (on SQLite it holds the only connection). */
  async function telling() {
    const [name, links] = await Promise.all([siteName(ctx), AppealLinks.load(db)]);
    return { siteName: name, publicUrl: ctx.config.publicUrl, now: Date.now(), links };
  }

  /** The thread: every message the reader may see, with its pictures. */
  async function thread(row: repo.TicketListRow, withNotes: boolean): Promise<SupportTicket> {
    const [messages, files] = await Promise.all([repo.messagesOf(db, row.id, withNotes), repo.attachmentsOfTicket(db, row.id)]);
    const byMessage = new Map<number, SupportAttachment[]>();
    for (const f of files) {
      const list = byMessage.get(f.message_id!) ?? [];
      list.push({ id: f.id, name: f.name, width: f.width, height: f.height, size: f.size, url: ATTACHMENT_URL(f.id) });
      byMessage.set(f.message_id!, list);
    }
    let fields: SupportTicket['fields'] = [];
    try {
      const parsed: unknown = JSON.parse(row.fields_json);
      if (Array.isArray(parsed)) fields = parsed as SupportTicket['fields'];
    } catch {
      fields = [];
    }
    return {
      ...summary(row),
      fields,
      link:
        row.link_kind && row.link_id && row.link_label
          ? { kind: row.link_kind as SupportLink['kind'], id: row.link_id, label: row.link_label }
          : null,
      messages: messages.map((m): SupportMessage => ({
        id: m.id,
        text: m.text,
        staff: m.staff === 1,
        author: m.author_name ?? (m.staff === 1 ? 'Поддержка' : 'Игрок'),
        internal: m.internal === 1,
        created_at: Number(m.created_at),
        attachments: byMessage.get(m.id) ?? [],
      })),
    };
  }

  async function named(id: number) {
    const row = await repo.findTicketWithNames(db, id);
    if (!row) throw ticketMissing();
    return row;
  }

  async function staffView(id: number): Promise<AdminSupportTicket> {
    const row = await named(id);
    const base = await thread(row, true);
    const ban = row.ban_id !== null ? await repo.findBan(db, row.ban_id) : undefined;
    const now = Date.now();
    return {
      ...base,
      player: { id: row.user_id, username: row.player_name, email: row.player_email },
      assignee: row.assignee_id !== null && row.assignee_name !== null ? { id: row.assignee_id, username: row.assignee_name } : null,
      ban: ban
        ? {
            id: ban.id,
            reason: ban.reason,
            since: ban.created_at,
            until: ban.until,
            lifted: ban.lifted_at !== null || (ban.until !== null && ban.until <= now),
          }
        : null,
    };
  }

  /** Sends the uploader's pending pictures with a message; refused (and the transaction undone) unless all are theirs and pending. */
  async function attach(trx: Db, uploaderId: number, ids: readonly number[], ticketId: number, messageId: number): Promise<void> {
    if ((await repo.claimUploads(trx, uploaderId, ids, ticketId, messageId)) !== ids.length)
      throw badRequest(SUPPORT_TEXTS.attachmentUnusable, { code: 'attachment_not_found', field: 'attachment_ids' });
  }

  function noAttachmentsOnAppeals(row: repo.TicketRow, ids: readonly number[]) {
    // The banned player reads the appeal without an account, and pictures are served to accounts only.
    if (row.kind === 'appeal' && ids.length > 0)
      throw badRequest('К обжалованию блокировки картинки не прикрепляются', { code: 'invalid', field: 'attachment_ids' });
  }

  /** Tells the ticket's assignee (not when they wrote it themself) that the player wrote. */
  async function tellAssignee(trx: Db, row: repo.TicketRow, title: string, lines: string[], t: Awaited<ReturnType<typeof telling>>) {
    if (row.assignee_id === null) return;
    const to = await repo.userContact(trx, row.assignee_id);
    if (!to) return;
    const mailed = await tell(trx, to, { title, lines, path: `/admin/support?ticket=${row.id}`, mailedAt: row.staff_mailed_at }, t);
    if (mailed) await repo.setTicket(trx, row.id, { staff_mailed_at: t.now });
  }

  /** Tells the player of a staff answer or a closing; an appeal's letter carries a fresh appeal link while the ban lasts. */
  async function tellPlayer(
    trx: Db,
    row: repo.TicketRow,
    title: string,
    lines: string[],
    t: Awaited<ReturnType<typeof telling>>,
    mail: boolean,
  ) {
    const to = await repo.userContact(trx, row.user_id);
    if (!to) return;
    let letterLink: string | undefined;
    if (row.kind === 'appeal' && row.ban_id !== null) {
      const ban = await repo.findBan(trx, row.ban_id);
      if (ban && ban.lifted_at === null && (ban.until === null || ban.until > t.now))
        letterLink = appealUrl(t.links.issue(row.user_id, ban.created_at, t.now));
    }
    const mailed = await tell(
      trx,
      to,
      { title, lines, path: `/support/${row.id}`, mailedAt: row.player_mailed_at, mail, ...(letterLink ? { letterLink } : {}) },
      t,
    );
    if (mailed) await repo.setTicket(trx, row.id, { player_mailed_at: t.now });
  }

  async function ownTicket(user: User, id: number): Promise<repo.TicketRow> {
    const row = await repo.findTicket(db, id);
    if (!row || row.user_id !== user.id) throw ticketMissing();
    return row;
  }

  // ---- Appeals

  async function appealOf(token: string, now = Date.now()): Promise<{ claim: AppealClaim; ban: repo.BanRow; username: string }> {
    const claim = (await AppealLinks.load(db)).read(token, now);
    if (!claim) throw badRequest(SUPPORT_TEXTS.appealLinkInvalid, { code: 'appeal_link_invalid' });
    const ban = await repo.banInForce(db, claim.userId, claim.since, now);
    if (!ban || ban.created_at !== claim.since) throw conflict(SUPPORT_TEXTS.appealBanOver, { code: 'appeal_ban_over' });
    const user = await repo.userContact(db, claim.userId);
    if (!user) throw conflict(SUPPORT_TEXTS.appealBanOver, { code: 'appeal_ban_over' });
    return { claim, ban, username: user.username };
  }

  return {
    /** Whether a link carries this site's signature and has not expired (checked before the body is read). */
    async appealSigned(token: unknown): Promise<boolean> {
      return typeof token === 'string' && (await AppealLinks.load(db)).read(token) !== null;
    },

    // ---- Categories

    async categories(enabledOnly: boolean): Promise<SupportCategory[]> {
      return (await repo.listCategories(db, enabledOnly)).map(toCategory);
    },

    async createCategory(actor: User, body: SupportCategoryBody & { fields: SupportFieldDef[] }): Promise<number> {
      const now = Date.now();
      const fields = keyFields(body.fields);
      return db.transaction().execute(async (trx) => {
        const id = await repo.insertCategory(trx, {
          name: body.name,
          description: body.description ?? '',
          icon: body.icon || null,
          fields_json: JSON.stringify(fields),
          position: body.position ?? 0,
          enabled: body.enabled === false ? 0 : 1,
          created_at: now,
          updated_at: now,
        });
        await recordAudit(trx, {
          actorId: actor.id,
          action: 'support.category.create',
          entity: 'support_category',
          entityId: id,
          after: body,
        });
        return id;
      });
    },

    async updateCategory(actor: User, id: number, body: SupportCategoryBody & { fields: SupportFieldDef[] }): Promise<SupportCategory> {
      const before = await repo.findCategory(db, id);
      if (!before) throw notFound(SUPPORT_TEXTS.categoryNotFound, { code: 'support_category_not_found' });
      const fields = keyFields(body.fields);
      await db.transaction().execute(async (trx) => {
        await repo.updateCategory(trx, id, {
          name: body.name,
          description: body.description ?? '',
          icon: body.icon || null,
          fields_json: JSON.stringify(fields),
          position: body.position ?? 0,
          enabled: body.enabled === false ? 0 : 1,
          updated_at: Date.now(),
        });
        await recordAudit(trx, {
          actorId: actor.id,
          action: 'support.category.update',
          entity: 'support_category',
          entityId: id,
          before: toCategory(before),
          after: body,
        });
      });
      return toCategory((await repo.findCategory(db, id))!);
    },

    /** Gone from every list; its tickets stay and keep its name. */
    async deleteCategory(actor: User, id: number): Promise<void> {
      const before = await repo.findCategory(db, id);
      if (!before) throw notFound(SUPPORT_TEXTS.categoryNotFound, { code: 'support_category_not_found' });
      await db.transaction().execute(async (trx) => {
        await repo.updateCategory(trx, id, { deleted_at: Date.now(), enabled: 0 });
        await recordAudit(trx, {
          actorId: actor.id,
          action: 'support.category.delete',
          entity: 'support_category',
          entityId: id,
          before: toCategory(before),
        });
      });
    },

    // ---- A player's tickets

    async linkChoices(user: User): Promise<SupportLink[]> {
      const rows = await repo.linkChoices(db, user.id);
      rows.sort((a, b) => b.created_at - a.created_at);
      return rows.map((r) => ({ kind: r.kind, id: r.id, label: linkLabel(r) }));
    },

    async create(
      user: User,
      body: {
        category_id: number;
        subject: string;
        message: string;
        fields: Record<string, unknown>;
        link?: SupportLinkRef | null;
        attachment_ids: number[];
      },
    ): Promise<number> {
      const category = await repo.findCategory(db, body.category_id);
      if (!category || category.enabled !== 1)
        throw badRequest(SUPPORT_TEXTS.categoryNotFound, { code: 'support_category_not_found', field: 'category_id' });
      const defs = repo.parseFields(category.fields_json);
      const problem = fieldAnswerProblems(defs, body.fields)[0];
      if (problem) throw badRequest(problem.message, { code: 'invalid', field: `fields.${problem.key}` });
      const answers = defs
        .filter((d) => {
          const v = body.fields[d.key];
          return v !== undefined && v !== false && !(typeof v === 'string' && v.trim() === '');
        })
        .map((d) => ({ label: d.label, value: answerText(d, body.fields[d.key]) }));
      let link: { kind: string; id: string; label: string } | null = null;
      if (body.link) {
        const found = await repo.ownLink(db, user.id, body.link.kind, body.link.id);
        if (!found) throw badRequest(SUPPORT_TEXTS.linkNotFound, { code: 'support_link_not_found', field: 'link' });
        link = { kind: found.kind, id: found.id, label: linkLabel(found) };
      }
      // Counted once the request is well-formed: a player correcting the form is not held back.
      await ctx.limiter.hit(`support:ticket:${user.id}`, SUPPORT_LIMITS.ticketsPerWindow);
      const now = Date.now();
      return db.transaction().execute(async (trx) => {
        // The row lock first, then the count it limits: two tickets sent at once cannot both pass.
        await repo.lockUser(trx, ctx.dbKind, user.id);
        if ((await repo.countOpenQuestions(trx, user.id)) >= SUPPORT_LIMITS.openTickets)
          throw conflict(SUPPORT_TEXTS.tooManyOpen, { code: 'too_many_open_tickets' });
        const id = await repo.insertTicket(trx, {
          user_id: user.id,
          kind: 'question',
          category_id: category.id,
          subject: body.subject,
          state: 'open',
          assignee_id: null,
          fields_json: JSON.stringify(answers),
          link_kind: link?.kind ?? null,
          link_id: link?.id ?? null,
          link_label: link?.label ?? null,
          ban_id: null,
          last_author: 'player',
          created_at: now,
          updated_at: now,
          closed_at: null,
          player_mailed_at: null,
          staff_mailed_at: null,
        });
        const messageId = await repo.insertMessage(trx, {
          ticket_id: id,
          author_id: user.id,
          staff: 0,
          internal: 0,
          text: body.message,
          created_at: now,
        });
        await attach(trx, user.id, body.attachment_ids, id, messageId);
        await siteEvent.run(trx, { kind: 'ticket', id, subject: body.subject, player: user.username, category: category.name });
        return id;
      });
    },

    async list(user: User, page: number): Promise<SupportTicketPage> {
      const { rows, total } = await repo.listTickets(db, { userId: user.id }, page);
      return { items: rows.map(summary), page, pages: pages(total), total };
    },

    /** The author's thread, or, for staff with `support`, the same view (never the notes: those are on the admin route). */
    async read(caller: Caller, id: number): Promise<SupportTicket> {
      const row = await repo.findTicketWithNames(db, id);
      if (!row || (row.user_id !== caller.user.id && !mayStaff(caller.rights))) throw ticketMissing();
      return thread(row, false);
    },

    async reply(user: User, id: number, body: { message: string; attachment_ids: number[] }): Promise<SupportTicket> {
      await ctx.limiter.hit(`support:message:${user.id}`, SUPPORT_LIMITS.messagesPerWindow);
      const row = await ownTicket(user, id);
      if (row.state === 'closed') throw closedRefusal();
      noAttachmentsOnAppeals(row, body.attachment_ids);
      const t = await telling();
      await db.transaction().execute(async (trx) => {
        if (!(await repo.moveTicket(trx, id, ['open', 'waiting'], { state: 'open', last_author: 'player', updated_at: t.now })))
          throw closedRefusal();
        const messageId = await repo.insertMessage(trx, {
          ticket_id: id,
          author_id: user.id,
          staff: 0,
          internal: 0,
          text: body.message,
          created_at: t.now,
        });
        await attach(trx, user.id, body.attachment_ids, id, messageId);
        await tellAssignee(
          trx,
          row,
          `Игрок ответил в обращении №${id}`,
          [`${user.username} в «${row.subject}»: ${excerpt(body.message)}`],
          t,
        );
      });
      ctx.jobs.kick(MAIL_JOB);
      return thread(await named(id), false);
    },

    async closeOwn(user: User, id: number): Promise<SupportTicket> {
      const row = await ownTicket(user, id);
      const now = Date.now();
      if (!(await repo.moveTicket(db, row.id, ['open', 'waiting'], { state: 'closed', closed_at: now, updated_at: now })))
        throw conflict(SUPPORT_TEXTS.alreadyClosed, { code: 'ticket_closed' });
      return thread(await named(id), false);
    },

    // ---- Pictures

    /** Counts an upload try: over the limit it is refused before its file is read. */
    admitUpload: (user: User) => ctx.limiter.hit(`support:upload:${user.id}`, SUPPORT_LIMITS.uploadsPerWindow),

    async upload(user: User, file: Buffer, filename: string): Promise<SupportAttachment> {
      if ((await repo.countPendingUploads(db, user.id)) >= SUPPORT_LIMITS.pendingUploads)
        throw tooMany(SUPPORT_TEXTS.tooManyPending, { code: 'rate_limited' });
      const image = await encodeAttachment(file);
      const name = displayName(filename, image.type);
      const id = await repo.insertAttachment(db, {
        uploader_id: user.id,
        ticket_id: null,
        message_id: null,
        name,
        type: image.type,
        bytes: image.bytes,
        size: image.bytes.length,
        width: image.width,
        height: image.height,
        created_at: Date.now(),
      });
      return { id, name, width: image.width, height: image.height, size: image.bytes.length, url: ATTACHMENT_URL(id) };
    },

    /** A picture, for its uploader while unsent, then for the ticket's author (not a note's) and staff; 404 for anyone else. */
    async picture(caller: Caller, id: number): Promise<{ bytes: Buffer; type: AttachmentType }> {
      const f = await repo.findAttachment(db, id);
      const allowed =
        !!f &&
        (f.message_id === null
          ? f.uploader_id === caller.user.id
          : mayStaff(caller.rights) || (f.ticket_user_id === caller.user.id && f.internal === 0));
      const bytes = allowed ? await repo.attachmentBytes(db, id) : undefined;
      if (!f || !bytes) throw notFound(SUPPORT_TEXTS.attachmentNotFound, { code: 'attachment_not_found' });
      return { bytes, type: f.type as AttachmentType };
    },

    staleUploadsJob: () => ({
      name: STALE_UPLOADS_JOB,
      everyMs: 60 * 60_000,
      run: () => repo.deleteStaleUploads(db, Date.now() - DAY_MS),
    }),

    // ---- Staff

    async adminList(actor: User, q: AdminSupportQuery): Promise<AdminSupportTicketPage> {
      const assignee = q.assignee === 'me' ? actor.id : q.assignee === 'none' ? 'none' : q.assignee ? Number(q.assignee) : undefined;
      const states = q.state === 'active' ? ['open', 'waiting'] : q.state ? [q.state] : undefined;
      const [{ rows, total }, open] = await Promise.all([
        repo.listTickets(
          db,
          {
            ...(states && { states }),
            ...(q.kind && { kind: q.kind }),
            ...(q.category_id !== undefined && { categoryId: q.category_id }),
            ...(assignee !== undefined && { assignee }),
            ...(q.q && { q: q.q }),
          },
          q.page,
        ),
        repo.countAwaitingStaff(db),
      ]);
      return {
        items: rows.map((r) => ({
          ...summary(r),
          player: { id: r.user_id, username: r.player_name },
          assignee: r.assignee_id !== null && r.assignee_name !== null ? { id: r.assignee_id, username: r.assignee_name } : null,
        })),
        page: q.page,
        pages: pages(total),
        total,
        open,
      };
    },

    adminRead: (id: number) => staffView(id),

    /**
     * A staff member writes: a note only staff see (nothing moves, nobody outside is told), or an
     * answer that waits for the player (or closes the ticket) and tells them. The first answer of
     * an unassigned ticket makes its writer the assignee.
     */
    async answer(
      actor: User,
      id: number,
      body: { message: string; internal: boolean; close: boolean; attachment_ids: number[] },
    ): Promise<AdminSupportTicket> {
      const row = await repo.findTicket(db, id);
      if (!row) throw ticketMissing();
      noAttachmentsOnAppeals(row, body.attachment_ids);
      const t = await telling();
      await db.transaction().execute(async (trx) => {
        if (body.internal) {
          const messageId = await repo.insertMessage(trx, {
            ticket_id: id,
            author_id: actor.id,
            staff: 1,
            internal: 1,
            text: body.message,
            created_at: t.now,
          });
          await attach(trx, actor.id, body.attachment_ids, id, messageId);
          return;
        }
        const moved = await repo.moveTicket(trx, id, ['open', 'waiting'], {
          state: body.close ? 'closed' : 'waiting',
          last_author: 'staff',
          updated_at: t.now,
          ...(body.close ? { closed_at: t.now } : {}),
          ...(row.assignee_id === null ? { assignee_id: actor.id } : {}),
        });
        if (!moved) throw closedRefusal();
        const messageId = await repo.insertMessage(trx, {
          ticket_id: id,
          author_id: actor.id,
          staff: 1,
          internal: 0,
          text: body.message,
          created_at: t.now,
        });
        await attach(trx, actor.id, body.attachment_ids, id, messageId);
        await tellPlayer(trx, row, `Ответ на обращение №${id}`, [`«${row.subject}»`, excerpt(body.message)], t, true);
      });
      ctx.jobs.kick(MAIL_JOB);
      return staffView(id);
    },

    async close(actor: User, id: number): Promise<AdminSupportTicket> {
      const row = await repo.findTicket(db, id);
      if (!row) throw ticketMissing();
      const t = await telling();
      await db.transaction().execute(async (trx) => {
        if (!(await repo.moveTicket(trx, id, ['open', 'waiting'], { state: 'closed', closed_at: t.now, updated_at: t.now })))
          throw conflict(SUPPORT_TEXTS.alreadyClosed, { code: 'ticket_closed' });
        await tellPlayer(trx, row, `Обращение №${id} закрыто`, [`«${row.subject}»`], t, false);
      });
      return staffView(id);
    },

    async reopen(actor: User, id: number): Promise<AdminSupportTicket> {
      const row = await repo.findTicket(db, id);
      if (!row) throw ticketMissing();
      const now = Date.now();
      const state = row.last_author === 'staff' ? 'waiting' : 'open';
      if (!(await repo.moveTicket(db, id, ['closed'], { state, closed_at: null, updated_at: now })))
        throw conflict(SUPPORT_TEXTS.notClosed, { code: 'conflict' });
      return staffView(id);
    },

    async assign(actor: User, id: number, assigneeId: number | null): Promise<AdminSupportTicket> {
      const row = await repo.findTicket(db, id);
      if (!row) throw ticketMissing();
      let to: Recipient | undefined;
      if (assigneeId !== null) {
        if (!(await repo.supportStaff(db)).some((s) => s.id === assigneeId))
          throw badRequest(SUPPORT_TEXTS.notSupportStaff, { code: 'not_support_staff', field: 'assignee_id' });
        to = await repo.userContact(db, assigneeId);
      }
      const t = await telling();
      await db.transaction().execute(async (trx) => {
        await repo.setTicket(trx, id, { assignee_id: assigneeId });
        if (to && to.id !== actor.id && row.assignee_id !== to.id) {
          await tell(
            trx,
            to,
            { title: `Вам назначено обращение №${id}`, lines: [`«${row.subject}»`], path: `/admin/support?ticket=${id}`, mailedAt: null },
            t,
          );
          await repo.setTicket(trx, id, { staff_mailed_at: t.now });
        }
      });
      ctx.jobs.kick(MAIL_JOB);
      return staffView(id);
    },

    staff: () => repo.supportStaff(db),

    // ---- Canned answers

    async canned(): Promise<CannedAnswer[]> {
      return (await repo.listCanned(db)).map((c) => ({ id: c.id, title: c.title, text: c.text }));
    },

    async saveCanned(actor: User, id: number | null, body: { title: string; text: string }): Promise<CannedAnswer> {
      const now = Date.now();
      const before = id === null ? undefined : await repo.findCanned(db, id);
      if (id !== null && !before) throw notFound(SUPPORT_TEXTS.cannedNotFound);
      const saved = await db.transaction().execute(async (trx) => {
        let savedId = id;
        if (savedId === null) {
          savedId = await repo.insertCanned(trx, { title: body.title, text: body.text, created_at: now, updated_at: now });
        } else {
          await repo.updateCanned(trx, savedId, { title: body.title, text: body.text, updated_at: now });
        }
        await recordAudit(trx, {
          actorId: actor.id,
          action: id === null ? 'support.canned.create' : 'support.canned.update',
          entity: 'support_canned',
          entityId: savedId,
          ...(before ? { before: { title: before.title, text: before.text } } : {}),
          after: body,
        });
        return savedId;
      });
      return { id: saved, title: body.title, text: body.text };
    },

    async deleteCanned(actor: User, id: number): Promise<void> {
      const before = await repo.findCanned(db, id);
      if (!before) throw notFound(SUPPORT_TEXTS.cannedNotFound);
      await db.transaction().execute(async (trx) => {
        await repo.deleteCanned(trx, id);
        await recordAudit(trx, {
          actorId: actor.id,
          action: 'support.canned.delete',
          entity: 'support_canned',
          entityId: id,
          before: { title: before.title, text: before.text },
        });
      });
    },

    // ---- Appeals

    async appealView(token: string): Promise<AppealView> {
      const { ban, username } = await appealOf(token);
      const ticket = await repo.findAppealByBan(db, ban.id);
      return {
        username,
        ban: banInfo({ reason: ban.reason, until: ban.until, since: ban.created_at }),
        ticket: ticket ? await thread(await named(ticket.id), false) : null,
      };
    },

    async appeal(token: string, message: string, ip: string): Promise<number> {
      await ctx.limiter.hit(`support:appeal:ip:${addressKey(ip)}`, SUPPORT_LIMITS.ticketsPerWindow);
      const { claim, ban } = await appealOf(token);
      await ctx.limiter.hit(`support:ticket:${claim.userId}`, SUPPORT_LIMITS.ticketsPerWindow);
      const exists = (id: number | null) => conflict(SUPPORT_TEXTS.appealExists, { code: 'appeal_exists', extra: { id } });
      const before = await repo.findAppealByBan(db, ban.id);
      if (before) throw exists(before.id);
      const now = Date.now();
      try {
        return await db.transaction().execute(async (trx) => {
          const id = await repo.insertTicket(trx, {
            user_id: claim.userId,
            kind: 'appeal',
            category_id: null,
            subject: APPEAL_SUBJECT,
            state: 'open',
            assignee_id: null,
            fields_json: '[]',
            link_kind: null,
            link_id: null,
            link_label: null,
            ban_id: ban.id,
            last_author: 'player',
            created_at: now,
            updated_at: now,
            closed_at: null,
            player_mailed_at: null,
            staff_mailed_at: null,
          });
          await repo.insertMessage(trx, { ticket_id: id, author_id: claim.userId, staff: 0, internal: 0, text: message, created_at: now });
          return id;
        });
      } catch (err) {
        // The same ban appealed twice at once: one appeal, the other is told where it is.
        if (isUniqueViolation(err)) throw exists((await repo.findAppealByBan(db, ban.id))?.id ?? null);
        throw err;
      }
    },

    async appealReply(token: string, message: string): Promise<SupportTicket> {
      const { claim, ban, username } = await appealOf(token);
      await ctx.limiter.hit(`support:message:${claim.userId}`, SUPPORT_LIMITS.messagesPerWindow);
      const row = await repo.findAppealByBan(db, ban.id);
      if (!row) throw ticketMissing();
      if (row.state === 'closed') throw closedRefusal();
      const t = await telling();
      await db.transaction().execute(async (trx) => {
        if (!(await repo.moveTicket(trx, row.id, ['open', 'waiting'], { state: 'open', last_author: 'player', updated_at: t.now })))
          throw closedRefusal();
        await repo.insertMessage(trx, {
          ticket_id: row.id,
          author_id: claim.userId,
          staff: 0,
          internal: 0,
          text: message,
          created_at: t.now,
        });
        await tellAssignee(trx, row, `Игрок ответил в обжаловании №${row.id}`, [`${username}: ${excerpt(message)}`], t);
      });
      ctx.jobs.kick(MAIL_JOB);
      return thread(await named(row.id), false);
    },
  };
}

export type SupportService = ReturnType<typeof createSupportService>;
