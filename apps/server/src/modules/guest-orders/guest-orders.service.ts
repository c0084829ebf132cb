import { randomUUID } from 'node:crypto';
import {
  GUEST_ORDER_TEXTS,
  ON_SALE,
  type GuestOrder,
  type ConsentKind,
  type GuestOrderBody,
  type GuestOrderKind,
  type GuestTierOrderBody,
  type NewGuestOrder,
} from '@kubik/contract';
import type { FastifyBaseLogger } from 'fastify';
import type { AppContext } from '../../context.ts';
import type { Db } from '../../db/index.ts';
import { badRequest, conflict, forbidden, HttpError, notFound } from '../../lib/errors.ts';
import { toRoubles } from '../../lib/money.ts';
import type { ProviderPaymentState } from '../../lib/payments/index.ts';
import { addressKey } from '../../lib/rate-limit.ts';
import { enqueueDeliveries, kickDeliveries, type DeliveryRequest } from '../deliveries/deliveries.queue.ts';
import { formatRub } from '../payments/payments.repo.ts';
import { paymentsService } from '../payments/payments.service.ts';
import { goodsLine, receiptFiscal } from '../payments/receipts.service.ts';
import * as donateRepo from '../donate/donate.repo.ts';
import { adoptPaid, placePaid, plan, queueTierGrant, queueTierRevoke } from '../privileges/privileges.placement.ts';
import { periodPrice } from '../privileges/privileges.purchase.ts';
import { MONTH_MS } from '../privileges/privileges.service.ts';
import { lockPlayers } from '../purchases/purchases.service.ts';
import { itemForPurchase } from '../shop/shop.repo.ts';
import { categorySales, commandsOf, deliveryChunks, priceNow } from '../shop/shop.service.ts';
import { guestConsentsNeeded, recordGuestConsents, requireConsents } from '../site/legal.service.ts';
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
    kind: r.kind,
    nickname: r.nickname,
    item: r.item_name,
    quantity: Number(r.quantity),
    amount: toRoubles(Number(r.amount)),
    status: r.status as GuestOrder['status'],
    confirmation_url: r.status === 'pending' ? r.confirmation_url : null,
  };
}

/** Who a guest buys for and how they pay: the same for an item and a tier. */
interface Buyer {
  nickname: string;
  email: string;
  provider: 'yookassa' | 'tbank';
  consents?: ConsentKind[] | undefined;
}

/** Where the guest's request came from: kept with the consents given. */
export interface GuestRequest {
  ip: string;
  userAgent: string | null;
}

/** What a guest order sells, priced now: its row's columns, the payment's description and the receipt's line. */
interface Sale {
  kind: GuestOrderKind;
  itemId: number;
  name: string;
  quantity: number;
  amount: number;
  /** What the provider's page and the receipt call it. */
  description: string;
  /** The fiscal item (per-item VAT and payment subject the owner set). */
  fiscal: { kind: 'shop_item' | 'tier'; id: number };
  /** Where the guest comes back to. */
  page: '/shop' | '/donate';
}

/** Refuses a sum below the providers' least payment, beside the field that makes it. */
function checkLeast(ctx: AppContext, amount: number, field: string, hint: string): void {
  const min = ctx.config.payments.minKopecks;
  if (amount < min) throw badRequest(`Сумма заказа должна быть не меньше ${formatRub(min)}${hint}`, { code: 'invalid', field });
}

/**
 * A guest order of either kind: the owner's switch, the address's limit, the sale priced (and
 * refused) by its kind, the order's row, then the payment at the provider with a full_payment
 * receipt of what is bought. Nothing is credited to any balance: when the provider says it is
 * paid, the order is fulfilled for the nickname (or the account that has it).
 */
async function start(
  ctx: AppContext,
  buyer: Buyer,
  { ip, userAgent }: GuestRequest,
  price: (account: { id: number; username: string } | undefined, now: number) => Promise<Sale>,
): Promise<NewGuestOrder> {
  const { db } = ctx;
  if (!(await ctx.settings.get(SiteSettingsDoc)).guest_purchases) throw forbidden(GUEST_ORDER_TEXTS.off, { code: 'guest_purchases_off' });
  await ctx.limiter.hit(`guest-order:ip:${addressKey(ip)}`, GUEST_ORDERS_PER_IP);
  // The offer and the policy once the owner has published them, and the adult-or-parent mark:
  // a guest has no account that remembers them, so every order asks.
  const consents = await guestConsentsNeeded(db);
  requireConsents(consents, buyer.consents);
  const now = Date.now();
  const lower = buyer.nickname.toLowerCase();
  const account = await repo.accountNamed(db, lower);
  const sale = await price(account, now);
  const forName = account?.username ?? buyer.nickname;
  const adapter = (await paymentsService(ctx).adapters())[buyer.provider];
  if (!adapter) throw badRequest(GUEST_ORDER_TEXTS.providerOff, { code: 'provider_off', field: 'provider' });
  const receipt = await receiptFiscal(ctx);
  const id = randomUUID();
  await db.transaction().execute(async (trx) => {
    await repo.insertOrder(trx, {
      id,
      kind: sale.kind,
      nickname: forName,
      nickname_lower: lower,
      email: buyer.email,
      item_id: sale.itemId,
      item_name: sale.name.slice(0, 200),
      quantity: sale.quantity,
      amount: sale.amount,
      provider: buyer.provider,
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
    await recordGuestConsents(trx, { id, nickname: forName }, consents, { ip, userAgent });
  });
  try {
    const created = await adapter.create({
      id,
      amountKopecks: sale.amount,
      description: `${sale.description} для ${forName} (${await siteName(ctx)})`,
      returnUrl: `${ctx.config.publicUrl}${sale.page}?guest_order=${id}`,
      notificationUrl: paymentsService(ctx).registry.notificationUrl(buyer.provider),
      email: buyer.email,
      vatCode: receipt.vatCode,
      fiscal: receipt.fiscal,
      // The goods are named and handed over on payment: «полный расчёт», not an advance.
      lines: [await goodsLine(db, sale.fiscal, `${sale.description} для ${forName}`, sale.amount, receipt.vatCode)],
    });
    await repo.updateOrder(db, id, { provider_payment_id: created.providerPaymentId, confirmation_url: created.confirmationUrl });
  } catch {
    await repo.settle(db, id, 'canceled', {});
    throw new HttpError(502, 'Платёжная система не ответила. Попробуйте ещё раз позже.', { code: 'provider_failed' });
  }
  // Known: an account has the name, or a game server reported someone by it playing here.
  const known = account !== undefined || (await repo.playedHere(db, lower));
  return { ...toGuestOrder((await repo.getOrder(db, id))!), known };
}

/** POST /api/shop/guest-orders: a shop item for a nickname. */
export async function create(ctx: AppContext, body: GuestOrderBody & { quantity: number }, from: GuestRequest): Promise<NewGuestOrder> {
  return start(ctx, body, from, async (_account, now) => {
    const item = await itemForPurchase(ctx.db, body.shop_id);
    if (!item || item.deleted_at !== null) throw notFound('Товар не найден', { code: 'not_found', field: 'shop_id' });
    if (item.status !== ON_SALE) throw conflict('Этот товар сейчас не продаётся', { code: 'not_on_sale', field: 'shop_id' });
    if (Number(item.unlimited) !== 1 && Number(item.count) < body.quantity)
      throw conflict(Number(item.count) <= 0 ? 'Товар закончился' : `В наличии только ${Number(item.count)} шт.`, {
        code: Number(item.count) <= 0 ? 'sold_out' : 'not_enough_stock',
        field: 'quantity',
      });
    const amount = priceNow(item, await categorySales(ctx.db, now), now).price * body.quantity;
    checkLeast(ctx, amount, 'quantity', ': увеличьте количество');
    return {
      kind: 'item',
      itemId: item.id,
      name: item.name,
      quantity: body.quantity,
      amount,
      description: `${item.name} × ${body.quantity}`,
      fiscal: { kind: 'shop_item', id: item.id },
      page: '/shop',
    };
  });
}

/**
 * POST /api/donate/{id}/guest-orders: a tier for a nickname for one of its periods, at the
 * period's price now (no upgrade credit: the guest cannot see the holder's privilege). Refused
 * up front what the payment could not give: a tier or a period not sold, a tier below the one the
 * nickname's account runs, a second tier for a nickname without an account that holds one.
 */
export async function createTier(ctx: AppContext, tierId: number, body: GuestTierOrderBody, from: GuestRequest): Promise<NewGuestOrder> {
  return start(ctx, body, from, async (account, now) => {
    const { tier, tiers, price } = await periodPrice(ctx.db, tierId, body.months, now);
    checkLeast(ctx, price, 'months', ': выберите срок подольше');
    if (account) {
      try {
        await plan(ctx.db, { userId: account.id, tier, tiers, addMs: body.months * MONTH_MS, now, creditUpTo: 0 });
      } catch (err) {
        // The purchase's refusal speaks to the holder («у вас»); the guest is told about the player.
        if (err instanceof HttpError && err.code === 'downgrade')
          throw conflict(GUEST_ORDER_TEXTS.downgrade(account.username, tier.title), { code: 'downgrade', field: 'nickname' });
        throw err;
      }
    } else {
      const held = await repo.nicknameHolding(ctx.db, body.nickname.toLowerCase(), now);
      if (held) throw conflict(GUEST_ORDER_TEXTS.nicknameHolds(held.item_name), { code: 'nickname_holds', field: 'nickname' });
    }
    return {
      kind: 'tier',
      itemId: tier.id,
      name: tier.title,
      quantity: body.months,
      amount: price,
      description: `Привилегия ${tier.title} на ${body.months} мес.`,
      fiscal: { kind: 'tier', id: tier.id },
      page: '/donate',
    };
  });
}

/** The deliveries of a paid item order: the item's own commands once, or the server's template per stack. */
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
    const account = await repo.accountNamed(trx, order.nickname_lower);
    return order.kind === 'tier' ? fulfilTier(ctx, trx, order, account?.id ?? null, now) : fulfilItem(trx, order, account?.id ?? null, now);
  });
  if (queued) kickDeliveries(ctx);
  return queued ? 'оплачен, выдача поставлена в очередь' : 'без изменений';
}

/** A paid item: the stock taken and its deliveries queued; false (left to the owner to refund) when it is gone or sold out. */
async function fulfilItem(trx: Db, order: GuestOrderRow, userId: number | null, now: number): Promise<boolean> {
  const item = await itemForPurchase(trx, Number(order.item_id));
  if (!item || !(await repo.takeStock(trx, item.id, Number(order.quantity), now))) return false;
  await enqueueDeliveries(trx, deliveriesOf(order, item, userId));
  await repo.updateOrder(trx, order.id, { fulfilled: 1, user_id: userId });
  return true;
}

/**
 * A paid tier: for an account, placed as a purchase of the tier is (extended, replacing a lower
 * one, its grant queued); for a nickname without one, the order holds the privilege from now and
 * its grant commands are queued for the nickname. False (left to the owner to refund) when the
 * tier is gone, the account runs a higher one meanwhile, or the nickname holds another tier.
 */
async function fulfilTier(ctx: AppContext, trx: Db, order: GuestOrderRow, userId: number | null, now: number): Promise<boolean> {
  const tiers = await donateRepo.listTiers(trx);
  const tier = tiers.find((t) => t.id === Number(order.item_id));
  if (!tier) return false;
  const months = Number(order.quantity);
  if (userId !== null) {
    await lockPlayers(trx, ctx.dbKind, [userId]);
    let placed;
    try {
      placed = await placePaid(trx, { userId, tier, tiers, months, amount: Number(order.amount), now });
    } catch (err) {
      if (err instanceof HttpError) return false;
      throw err;
    }
    await repo.updateOrder(trx, order.id, {
      fulfilled: 1,
      user_id: userId,
      privilege_id: placed.privilegeId,
      expires_at: placed.expiresAt,
    });
    return true;
  }
  if (await repo.nicknameHolding(trx, order.nickname_lower, now, order.id)) return false;
  const expiresAt = now + months * MONTH_MS;
  await queueTierGrant(trx, tier, { guest: { userId: null, playerName: order.nickname } }, expiresAt, now);
  await repo.updateOrder(trx, order.id, { fulfilled: 1, expires_at: expiresAt });
  return true;
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

/**
 * The reconciliation pass: pending orders re-read; those past a day canceled; tiers held for a
 * nickname whose end came ended, their revoke commands queued once (for the account when one
 * took the nickname after the end).
 */
export async function reconcile(ctx: AppContext, now = Date.now(), log?: FastifyBaseLogger): Promise<void> {
  for (const o of await repo.pendingOrders(ctx.db, 100)) {
    await refresh(ctx, o).catch((err: unknown) => log?.warn({ err, order: o.id }, 'guest order re-read failed'));
    if (Number(o.created_at) < now - GUEST_ORDER_EXPIRY_MS) await repo.settle(ctx.db, o.id, 'canceled', {});
  }
  let ended = 0;
  for (const o of await repo.dueHoldings(ctx.db, now, 100)) {
    const done = await ctx.db.transaction().execute(async (trx) => {
      if (!(await repo.endHolding(trx, o.id, now))) return false;
      const holder = { guest: { userId: o.user_id === null ? null : Number(o.user_id), playerName: o.nickname } };
      await queueTierRevoke(trx, Number(o.item_id), holder, Number(o.expires_at));
      return true;
    });
    if (done) ended++;
  }
  if (ended > 0) kickDeliveries(ctx);
}

/**
 * An account registered with a guest's nickname (in its transaction): the tiers the nickname holds
 * become its privileges, running to the same end; then its orders and waiting deliveries are its.
 */
export async function registered(trx: Db, userId: number, lower: string, now = Date.now()): Promise<void> {
  for (const o of await repo.holdingsOf(trx, lower, now)) {
    const privilegeId = await adoptPaid(trx, {
      userId,
      tierId: Number(o.item_id),
      title: o.item_name,
      months: Number(o.quantity),
      amount: Number(o.amount),
      startsAt: Number(o.paid_at ?? o.created_at),
      expiresAt: Number(o.expires_at),
      now,
    });
    if (privilegeId !== null) await repo.handOver(trx, o.id, privilegeId);
  }
  await repo.attachToAccount(trx, userId, lower);
}
