import {
  deliveryStatus,
  waitingText,
  type AdminDelivery,
  type DeliverySource,
  type DeliveryStatus,
  type DeliveryState,
  type DeliveryWaiting,
  type PlayerDelivery,
} from '@kubik/contract';
import type { Db } from '../../db/index.ts';
import { badRequest, conflict, notFound } from '../../lib/errors.ts';
import { toRoubles } from '../../lib/money.ts';
import { recordAudit } from '../audit/audit.service.ts';
import * as repo from './deliveries.repo.ts';

export const DELIVERY_TEXTS = {
  notFound: 'Доставка не найдена',
  resent: 'Доставка поставлена в очередь',
  alreadyDone: 'Предмет уже выдан: эту доставку нельзя повторить или вернуть',
  alreadyRefunded: 'Деньги за эту доставку уже возвращены',
  inFlight: 'Команда сейчас выполняется. Подождите ответа сервера.',
  serverNotFound: 'Сервер не найден',
} as const;

function toAdmin(r: repo.AdminDeliveryRow): AdminDelivery {
  const commands = r.commands === null ? null : (JSON.parse(r.commands) as string[]);
  return {
    id: r.id,
    source: r.source as DeliverySource,
    source_id: r.source_id,
    order_id: r.source === 'shop' ? r.source_id : null,
    user_id: r.user_id,
    username: r.username,
    label: r.label,
    item_name: r.item_name,
    item_id_minecraft: r.item_id_minecraft,
    quantity: r.quantity === null ? null : Number(r.quantity),
    amount: r.amount === null ? null : toRoubles(Number(r.amount)),
    server_id: r.server_id,
    server_name: r.server_name,
    server_scope: r.server_scope as AdminDelivery['server_scope'],
    state: r.state as DeliveryState,
    waiting: r.waiting as DeliveryWaiting | null,
    commands,
    step: Number(r.step),
    steps: commands?.length ?? 1,
    attempts: Number(r.attempts),
    command: r.command,
    reply: r.reply,
    last_error: r.last_error,
    next_attempt_at: Number(r.next_attempt_at),
    last_attempt_at: r.sent_at === null ? null : Number(r.sent_at),
    done_at: r.done_at === null ? null : Number(r.done_at),
    handed_to_plugin_at: r.channel === 'plugin' && r.state === 'done' && r.done_at !== null ? Number(r.done_at) : null,
    created_at: Number(r.created_at),
    updated_at: Number(r.updated_at),
  };
}

export async function listDeliveries(
  db: Db,
  filter: { state?: DeliveryState | undefined; source?: DeliverySource | undefined; limit?: number | undefined },
): Promise<AdminDelivery[]> {
  const rows = await repo.listAdminRows(db, { state: filter.state, source: filter.source, limit: filter.limit ?? 200 });
  return rows.map(toAdmin);
}

export async function getDelivery(db: Db, id: number): Promise<AdminDelivery> {
  const row = await repo.findAdminRow(db, id);
  if (!row) throw notFound(DELIVERY_TEXTS.notFound, { code: 'delivery_not_found' });
  return toAdmin(row);
}

/** Why a delivery cannot be resent or refunded, from its state. */
export function refusal(state: string) {
  if (state === 'done') return conflict(DELIVERY_TEXTS.alreadyDone, { code: 'delivery_done' });
  if (state === 'refunded') return conflict(DELIVERY_TEXTS.alreadyRefunded, { code: 'delivery_refunded' });
  return conflict(DELIVERY_TEXTS.inFlight, { code: 'delivery_in_flight' });
}

/**
 * Sends again: a failed or unknown delivery, or one handed to the AzLink plugin, goes back to the queue (the admin has checked that it
 * did not arrive), from the command it stopped at; a pending one is tried at once instead of after
 * its backoff. `serverId` moves it to another server (its own was deleted, say).
 */
export async function resendDelivery(db: Db, adminId: number, id: number, serverId?: number): Promise<AdminDelivery> {
  await db.transaction().execute(async (trx) => {
    const before = await repo.resendState(trx, id);
    if (!before) throw notFound(DELIVERY_TEXTS.notFound, { code: 'delivery_not_found' });
    if (serverId !== undefined && !(await repo.serverExists(trx, serverId)))
      throw badRequest(DELIVERY_TEXTS.serverNotFound, { code: 'server_not_found', field: 'server_id' });
    const now = Date.now();
    // A delivery for "the only server with RCON" looks for it again.
    const server =
      serverId !== undefined ? { server_id: serverId, server_scope: 'server' } : before.server_scope === 'only' ? { server_id: null } : {};
    // A pending row may be held by a worker at this moment: only its due time (and server) change.
    if (!(await repo.requeue(trx, id, server, now)) && !(await repo.hurry(trx, id, server, now))) throw refusal(before.state);
    await recordAudit(trx, {
      actorId: adminId,
      action: 'delivery.resend',
      entity: 'delivery',
      entityId: id,
      before,
      after: { state: 'pending', ...server },
    });
  });
  return getDelivery(db, id);
}

function toPlayer(r: repo.PlayerDeliveryRow): PlayerDelivery {
  const state = r.state as DeliveryState;
  const waiting = state === 'pending' ? (r.waiting as DeliveryWaiting | null) : null;
  return {
    id: r.id,
    source: r.source as DeliverySource,
    source_id: r.source_id,
    label: r.label,
    quantity: r.quantity === null ? null : Number(r.quantity),
    server_name: r.server_name,
    state,
    waiting,
    waiting_text: waitingText(waiting, r.server_name, r.source as DeliverySource),
    created_at: Number(r.created_at),
    updated_at: Number(r.updated_at),
  };
}

/** A player's deliveries of every source, newest first (the profile). */
export async function listForPlayer(db: Db, userId: number, limit = 100): Promise<PlayerDelivery[]> {
  const rows = await repo.playerRowsOf(db, userId, limit);
  return rows.map(toPlayer);
}

/** The deliveries of some rows of one source (a shop's orders, a player's privileges), oldest first, by source id. */
export async function deliveriesOf(db: Db, source: DeliverySource, sourceIds: number[]): Promise<Map<number, PlayerDelivery[]>> {
  const bySource = new Map<number, PlayerDelivery[]>();
  if (sourceIds.length === 0) return bySource;
  const rows = await repo.playerRowsOfSources(db, source, sourceIds);
  for (const r of rows) {
    const list = bySource.get(r.source_id!) ?? [];
    list.push(toPlayer(r));
    bySource.set(r.source_id!, list);
  }
  return bySource;
}

/** What a card says about its deliveries (contract's deliveryStatus): the same rows the admin's list shows. */
export function statusOf(list: readonly PlayerDelivery[] | undefined): DeliveryStatus | null {
  return deliveryStatus(list ?? []);
}

/**
 * The latest batch of a source row's deliveries: a privilege is granted again at every extension,
 * and what the player holds now depends on the last grant, not on one an extension superseded.
 */
export function latestBatch(list: readonly PlayerDelivery[] | undefined): PlayerDelivery[] {
  if (!list || list.length === 0) return [];
  const last = Math.max(...list.map((d) => d.created_at));
  return list.filter((d) => d.created_at === last);
}

/** Deliveries by id (a refund of one delivery names it in the ledger). */
export async function deliveriesById(db: Db, ids: number[]): Promise<Map<number, PlayerDelivery>> {
  if (ids.length === 0) return new Map();
  const rows = await repo.playerRowsById(db, ids);
  return new Map(rows.map((r) => [r.id, toPlayer(r)]));
}
