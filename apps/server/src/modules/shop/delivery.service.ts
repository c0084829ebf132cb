import type { AdminDelivery, DeliveryState } from '@kubik/contract';
import { sql } from 'kysely';
import type { AppContext } from '../../context.ts';
import type { Db } from '../../db/index.ts';
import { conflict, notFound } from '../../lib/errors.ts';
import { toRoubles } from '../../lib/money.ts';
import type { UserRow } from '../accounts/accounts.repo.ts';
import { recordAudit } from '../audit/audit.service.ts';
import { postLedger } from '../ledger/ledger.service.ts';
import { dropListCache } from './shop.service.ts';

export const DELIVERY_TEXTS = {
  notFound: 'Доставка не найдена',
  resent: 'Доставка поставлена в очередь',
  refunded: 'Деньги возвращены на баланс игрока',
  alreadyDone: 'Предмет уже выдан: эту доставку нельзя повторить или вернуть',
  alreadyRefunded: 'Деньги за эту доставку уже возвращены',
  inFlight: 'Команда сейчас выполняется. Подождите ответа сервера.',
} as const;

function deliveries(db: Db) {
  return db
    .selectFrom('shop_deliveries as d')
    .innerJoin('shop_orders as o', 'o.id', 'd.order_id')
    .innerJoin('users as u', 'u.id', 'd.user_id')
    .leftJoin('servers as s', 's.id', 'd.server_id')
    .select([
      'd.id',
      'd.order_id',
      'd.user_id',
      'u.username',
      'o.item_name',
      'o.item_id_minecraft',
      'd.quantity',
      sql<number>`o.price * d.quantity`.as('amount'),
      'd.server_id',
      's.name as server_name',
      'd.state',
      'd.attempts',
      'd.command',
      'd.reply',
      'd.last_error',
      'd.next_attempt_at',
      'd.created_at',
      'd.updated_at',
    ]);
}

type DeliveryRow = Awaited<ReturnType<ReturnType<typeof deliveries>['executeTakeFirstOrThrow']>>;

function toAdmin(r: DeliveryRow): AdminDelivery {
  return {
    ...r,
    quantity: Number(r.quantity),
    amount: toRoubles(Number(r.amount)),
    state: r.state as DeliveryState,
    attempts: Number(r.attempts),
    next_attempt_at: Number(r.next_attempt_at),
    created_at: Number(r.created_at),
    updated_at: Number(r.updated_at),
  };
}

export async function listDeliveries(db: Db, filter: { state?: DeliveryState | undefined; limit?: number | undefined }): Promise<AdminDelivery[]> {
  let q = deliveries(db)
    .orderBy('d.id', 'desc')
    .limit(filter.limit ?? 200);
  if (filter.state) q = q.where('d.state', '=', filter.state);
  return (await q.execute()).map(toAdmin);
}

export async function getDelivery(db: Db, id: number): Promise<AdminDelivery> {
  const row = await deliveries(db).where('d.id', '=', id).executeTakeFirst();
  if (!row) throw notFound(DELIVERY_TEXTS.notFound);
  return toAdmin(row);
}

function refusal(state: string) {
  if (state === 'done') return conflict(DELIVERY_TEXTS.alreadyDone);
  if (state === 'refunded') return conflict(DELIVERY_TEXTS.alreadyRefunded);
  return conflict(DELIVERY_TEXTS.inFlight);
}

/**
 * Sends again: a failed or unknown delivery goes back to the queue (the admin has checked that it
 * did not arrive); a pending one is tried at once instead of after its backoff.
 */
export async function resendDelivery(ctx: AppContext, admin: UserRow, id: number): Promise<AdminDelivery> {
  await ctx.db.transaction().execute(async (trx) => {
    const before = await trx.selectFrom('shop_deliveries').select(['state', 'attempts', 'reply', 'last_error']).where('id', '=', id).executeTakeFirst();
    if (!before) throw notFound(DELIVERY_TEXTS.notFound);
    const now = Date.now();
    const requeued = await trx
      .updateTable('shop_deliveries')
      .set({ state: 'pending', retries: 0, next_attempt_at: now, lock_token: null, locked_until: null, last_error: null, updated_at: now })
      .where('id', '=', id)
      .where('state', 'in', ['failed', 'unknown'])
      .executeTakeFirst();
    if (Number(requeued.numUpdatedRows) !== 1) {
      // A pending row may be held by a worker at this moment: only its due time changes.
      const hurried = await trx.updateTable('shop_deliveries').set({ retries: 0, next_attempt_at: now, updated_at: now }).where('id', '=', id).where('state', '=', 'pending').executeTakeFirst();
      if (Number(hurried.numUpdatedRows) !== 1) throw refusal(before.state);
    }
    await recordAudit(trx, { actorId: admin.id, action: 'shop.delivery.resend', entity: 'shop_delivery', entityId: id, before, after: { state: 'pending' } });
  });
  return getDelivery(ctx.db, id);
}

/**
 * Returns the delivery's worth to the player's balance, once: the state change is conditional,
 * so a second refund (or one racing the worker) finds nothing to change. The pieces go back to stock.
 */
export async function refundDelivery(ctx: AppContext, admin: UserRow, id: number): Promise<{ delivery: AdminDelivery; newBalance: number }> {
  const newBalance = await ctx.db.transaction().execute(async (trx) => {
    const row = await trx
      .selectFrom('shop_deliveries as d')
      .innerJoin('shop_orders as o', 'o.id', 'd.order_id')
      .select(['d.state', 'd.user_id', 'd.quantity', 'o.price', 'o.item_id', 'o.item_name'])
      .where('d.id', '=', id)
      .executeTakeFirst();
    if (!row) throw notFound(DELIVERY_TEXTS.notFound);
    const now = Date.now();
    const changed = await trx
      .updateTable('shop_deliveries')
      .set({ state: 'refunded', refunded_at: now, lock_token: null, locked_until: null, updated_at: now })
      .where('id', '=', id)
      .where('state', 'in', ['pending', 'failed', 'unknown'])
      .where('refunded_at', 'is', null)
      .executeTakeFirst();
    if (Number(changed.numUpdatedRows) !== 1) {
      const current = await trx.selectFrom('shop_deliveries').select('state').where('id', '=', id).executeTakeFirstOrThrow();
      throw refusal(current.state);
    }
    const quantity = Number(row.quantity);
    const amount = Number(row.price) * quantity;
    const balance = await postLedger(trx, { userId: row.user_id, amount, reason: 'refund', authorId: admin.id, ref: `delivery:${id}`, note: `Возврат: ${row.item_name} × ${quantity}` });
    await trx.updateTable('shop_items').set({ count: sql<number>`count + ${quantity}`, updated_at: now }).where('id', '=', row.item_id).execute();
    await recordAudit(trx, { actorId: admin.id, action: 'shop.delivery.refund', entity: 'shop_delivery', entityId: id, before: { state: row.state }, after: { state: 'refunded', amount_kopecks: amount } });
    return balance;
  });
  await dropListCache(ctx);
  return { delivery: await getDelivery(ctx.db, id), newBalance: toRoubles(newBalance) };
}
