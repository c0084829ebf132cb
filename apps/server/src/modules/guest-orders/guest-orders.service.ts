import { randomUUID } from 'node:crypto';
import { GUEST_ORDER_TEXTS, ON_SALE, type GuestOrder, type GuestOrderBody } from '@kubik/contract';
import type { FastifyBaseLogger } from 'fastify';
import type { AppContext } from '../../context.ts';
import { badRequest, conflict, forbidden, HttpError, notFound } from '../../lib/errors.ts';
import { toRoubles } from '../../lib/money.ts';
import type { ProviderPaymentState } from '../../lib/payments/index.ts';
import { addressKey } from '../../lib/rate-limit.ts';
import { enqueueDeliveries, kickDeliveries, type DeliveryRequest } from '../deliveries/deliveries.queue.ts';
import { formatRub } from '../payments/payments.repo.ts';
import { paymentsService } from '../payments/payments.service.ts';
import { goodsLine, receiptFiscal } from '../payments/receipts.service.ts';
import { itemForPurchase } from '../shop/shop.repo.ts';
import { categorySales, commandsOf, deliveryChunks, priceNow } from '../shop/shop.service.ts';
import { siteName, SiteSettingsDoc } from '../site/site.settings.ts';
import * as repo from './guest-orders.repo.ts';
import type { GuestOrderRow } from './guest-orders.repo.ts';

/** Guest orders one address may start per window of the site's limiter. */
export const GUEST_ORDERS_PER_IP = 10;
/** A guest order nobody paid for this long is canceled. */
export const GUEST_ORDER_EXPIRY_MS = 24 * 3_600_000;

export function toGuestOrder(r: GuestOrderRow): GuestOrder {
  return {
    id: r.id,
    nickname: r.nickname,
    item: r.item_name,
    quantity: Number(r.quantity),
    amount: toRoubles(Number(r.amount)),
    status: r.status as GuestOrder['status'],
    confirmation_url: r.status === 'pending' ? r.confirmation_url : null,
  };
}

/**
 * POST /api/shop/guest-orders: an item for a nickname, paid by the guest straight to the
 * provider. Nothing is credited to any balance: when the provider says it is paid, its
 * deliveries are queued for the nickname (or the account that has it).
 */
export async function create(
  ctx: AppContext,
  body: GuestOrderBody & { quantity: number },
  ip: string,
): Promise<GuestOrder & { known: boolean }> {
  const { db } = ctx;
  if (!(await ctx.settings.get(SiteSettingsDoc)).guest_purchases) throw forbidden(GUEST_ORDER_TEXTS.off, { code: 'guest_purchases_off' });
  await ctx.limiter.hit(`guest-order:ip:${addressKey(ip)}`, GUEST_ORDERS_PER_IP);
  const now = Date.now();
  const item = await itemForPurchase(db, body.shop_id);
  if (!item || item.deleted_at !== null) throw notFound('Товар не найден', { code: 'not_found', field: 'shop_id' });
  if (item.status !== ON_SALE) throw conflict('Этот товар сейчас не продаётся', { code: 'not_on_sale', field: 'shop_id' });
  if (Number(item.unlimited) !== 1 && Number(item.count) < body.quantity)
    throw conflict(Number(item.count) <= 0 ? 'Товар закончился' : `В наличии только ${Number(item.count)} шт.`, {
      code: Number(item.count) <= 0 ? 'sold_out' : 'not_enough_stock',
      field: 'quantity',
    });
  const amount = priceNow(item, await categorySales(db, now), now).price * body.quantity;
  const min = ctx.config.payments.minKopecks;
  if (amount < min)
    throw badRequest(`Сумма заказа должна быть не меньше ${formatRub(min)}: увеличьте количество`, { code: 'invalid', field: 'quantity' });
  const adapter = (await paymentsService(ctx).adapters())[body.provider];
  if (!adapter) throw badRequest(GUEST_ORDER_TEXTS.providerOff, { code: 'provider_off', field: 'provider' });
  const account = await repo.accountNamed(db, body.nickname.toLowerCase());
  const id = randomUUID();
  await repo.insertOrder(db, {
    id,
    nickname: account?.username ?? body.nickname,
    nickname_lower: body.nickname.toLowerCase(),
    email: body.email,
    item_id: item.id,
    item_name: item.name.slice(0, 200),
    quantity: body.quantity,
    amount,
    provider: body.provider,
    provider_payment_id: null,
    confirmation_url: null,
    status: 'pending',
    fulfilled: 0,
    user_id: account?.id ?? null,
    payer_ip: ip.slice(0, 64),
    created_at: now,
    paid_at: null,
    checked_at: null,
  });
  const receipt = await receiptFiscal(ctx);
  try {
    const created = await adapter.create({
      id,
      amountKopecks: amount,
      description: `${item.name} × ${body.quantity} для ${body.nickname} (${await siteName(ctx)})`,
      returnUrl: `${ctx.config.publicUrl}/shop?guest_order=${id}`,
      notificationUrl: paymentsService(ctx).registry.notificationUrl(body.provider),
      email: body.email,
      vatCode: receipt.vatCode,
      fiscal: receipt.fiscal,
      // The goods are paid for directly: the receipt is their «полный расчёт», not an advance.
      lines: [await goodsLine(db, { kind: 'shop_item', id: item.id }, `${item.name} × ${body.quantity}`, amount, receipt.vatCode)],
    });
    await repo.updateOrder(db, id, { provider_payment_id: created.providerPaymentId, confirmation_url: created.confirmationUrl });
  } catch {
    await repo.settle(db, id, 'canceled', {});
    throw new HttpError(502, 'Платёжная система не ответила. Попробуйте ещё раз позже.', { code: 'provider_failed' });
  }
  return { ...toGuestOrder((await repo.getOrder(db, id))!), known: account !== undefined };
}

/** The deliveries of a paid order: the item's own commands once, or the server's template per stack. */
function deliveriesOf(
  order: GuestOrderRow,
  item: NonNullable<Awaited<ReturnType<typeof itemForPurchase>>>,
  userId: number | null,
): DeliveryRequest[] {
  const own = commandsOf(item);
  const pieces = Number(item.pieces);
  const one = (units: number): DeliveryRequest => ({
    source: 'guest',
    sourceId: null,
    userId,
    ...(userId === null ? { playerName: order.nickname } : {}),
    label: item.name.slice(0, 200),
    server: item.server_id ?? 'only',
    commands: own.length > 0 ? own : null,
    // No {order}: a guest's order is no shop order (its id is a UUID, not a number).
    params: { item: item.item_id_minecraft, quantity: units * pieces },
    quantity: units,
  });
  return own.length > 0 ? [one(Number(order.quantity))] : deliveryChunks(Number(order.quantity), pieces).map(one);
}

/**
 * Applies the provider's word once: paid (the exact amount, our order) → the stock is taken and
 * the deliveries queued in the transaction that marks it paid; canceled → canceled.
 */
export async function apply(ctx: AppContext, order: GuestOrderRow, state: ProviderPaymentState): Promise<string> {
  if (state.orderId !== null && state.orderId !== order.id) return 'чужой платёж';
  const now = Date.now();
  if (state.status === 'canceled') return (await repo.settle(ctx.db, order.id, 'canceled', {})) ? 'отменён' : 'без изменений';
  if (state.status !== 'succeeded') return 'ещё не оплачен';
  if (state.amountKopecks !== Number(order.amount)) return 'сумма не совпала: не выдано';
  const queued = await ctx.db.transaction().execute(async (trx) => {
    if (!(await repo.settle(trx, order.id, 'paid', { paid_at: now }))) return false;
    const item = await itemForPurchase(trx, Number(order.item_id));
    const account = await repo.accountNamed(trx, order.nickname_lower);
    if (!item || !(await repo.takeStock(trx, item.id, Number(order.quantity), now))) return false;
    await enqueueDeliveries(trx, deliveriesOf(order, item, account?.id ?? null));
    await repo.updateOrder(trx, order.id, { fulfilled: 1, user_id: account?.id ?? null });
    return true;
  });
  if (queued) kickDeliveries(ctx);
  return queued ? 'оплачен, выдача поставлена в очередь' : 'без изменений';
}

/** Asks the provider about the order and moves it on. */
export async function refresh(ctx: AppContext, order: GuestOrderRow): Promise<string> {
  if (!order.provider_payment_id) return 'нет платежа у провайдера';
  const adapter = (await paymentsService(ctx).adapters())[order.provider as 'yookassa' | 'tbank'];
  if (!adapter) return 'способ оплаты отключён';
  await repo.updateOrder(ctx.db, order.id, { checked_at: Date.now() });
  return apply(ctx, order, await adapter.fetch(order.provider_payment_id));
}

/** GET /api/shop/guest-orders/{id}: the return page asks; a pending order is re-read first. */
export async function get(ctx: AppContext, id: string): Promise<GuestOrder> {
  let order = await repo.getOrder(ctx.db, id);
  if (!order) throw notFound(GUEST_ORDER_TEXTS.notFound, { code: 'not_found' });
  if (order.status === 'pending' && (order.checked_at === null || Date.now() - Number(order.checked_at) > 2000)) {
    await refresh(ctx, order).catch(() => undefined);
    order = (await repo.getOrder(ctx.db, id))!;
  }
  return toGuestOrder(order);
}

/** A provider notification about one of ours (payments passes on what it does not keep). */
export async function notified(ctx: AppContext, provider: string, providerPaymentId: string, log?: FastifyBaseLogger): Promise<void> {
  const order = await repo.orderOfProvider(ctx.db, provider, providerPaymentId);
  // The reconciliation pass asks again; the provider's notification is answered either way.
  if (order) await refresh(ctx, order).catch((err: unknown) => log?.warn({ err, order: order.id }, 'guest order re-read failed'));
}

/** The reconciliation pass: pending orders re-read; those past a day canceled. */
export async function reconcile(ctx: AppContext, now = Date.now(), log?: FastifyBaseLogger): Promise<void> {
  for (const o of await repo.pendingOrders(ctx.db, 100)) {
    await refresh(ctx, o).catch((err: unknown) => log?.warn({ err, order: o.id }, 'guest order re-read failed'));
    if (Number(o.created_at) < now - GUEST_ORDER_EXPIRY_MS) await repo.settle(ctx.db, o.id, 'canceled', {});
  }
}
