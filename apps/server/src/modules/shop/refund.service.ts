import type { AdminDelivery } from '@kubik/contract';
import type { AppContext } from '../../context.ts';
import { badRequest, notFound } from '../../lib/errors.ts';
import { toRoubles } from '../../lib/money.ts';
import { recordAudit } from '../audit/audit.service.ts';
import { DELIVERY_TEXTS, getDelivery, refusal } from '../deliveries/deliveries.service.ts';
import { postLedger } from '../ledger/ledger.service.ts';
import { balanceReturned } from '../users/users.ports.ts';
import { dropListCache } from './shop.cache.ts';
import * as repo from './shop.repo.ts';

export const REFUND_TEXTS = {
  refunded: 'Деньги возвращены на баланс игрока',
  notShop: 'Вернуть деньги можно только за покупку в магазине',
} as const;

/** A delivery's share of what its order cost (after sales and promo codes): never more than was paid. */
export function refundWorth(orderTotal: number, orderQuantity: number, deliveryQuantity: number): number {
  return Math.floor((orderTotal * deliveryQuantity) / Math.max(1, orderQuantity));
}

/**
 * Returns a shop delivery's worth (price × purchases it carries) to the player's balance, once:
 * the state change is conditional, so a second refund (or one racing the worker) finds nothing to
 * change. The purchases go back to stock.
 */
export async function refundDelivery(
  ctx: AppContext,
  adminId: number,
  id: number,
): Promise<{ delivery: AdminDelivery; newBalance: number }> {
  const newBalance = await ctx.db.transaction().execute(async (trx) => {
    const row = await repo.deliveryWithOrder(trx, id);
    if (!row) throw notFound(DELIVERY_TEXTS.notFound, { code: 'delivery_not_found' });
    if (row.source !== 'shop' || row.order_id === null || row.user_id === null)
      throw badRequest(REFUND_TEXTS.notShop, { code: 'not_a_purchase' });
    const now = Date.now();
    if (!(await repo.markDeliveryRefunded(trx, id, now))) throw refusal(await repo.deliveryState(trx, id));
    const quantity = Number(row.quantity);
    const amount = refundWorth(Number(row.total), Number(row.order_quantity), quantity);
    // A gift's money goes back to the player who paid for it.
    const payer = row.paid_by ?? row.user_id;
    const balance = await postLedger(trx, {
      userId: payer,
      amount,
      reason: 'refund',
      authorId: adminId,
      ref: `delivery:${id}`,
      note: `Возврат: ${row.item_name} × ${quantity}`,
    });
    // The goods were not handed over: the completion receipt of that money is reversed (payments).
    if (amount > 0)
      await balanceReturned.run(trx, {
        userId: payer,
        amount,
        spentRef: `order:${row.order_id}`,
        spent: Number(row.total),
        returnedBefore: await repo.returnedOfOrder(trx, row.order_id, id),
        ref: `delivery:${id}`,
      });
    await repo.restock(trx, row.item_id!, quantity, now);
    await recordAudit(trx, {
      actorId: adminId,
      action: 'delivery.refund',
      entity: 'delivery',
      entityId: id,
      before: { state: row.state },
      after: { state: 'refunded', amount_kopecks: amount },
    });
    return balance;
  });
  await dropListCache(ctx);
  return { delivery: await getDelivery(ctx.db, id), newBalance: toRoubles(newBalance) };
}
