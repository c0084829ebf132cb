import {
  LIMIT_PERIOD_TEXT,
  ON_SALE,
  type BuyBody,
  type BuyResponse,
  type CheckoutBody,
  type CheckoutResponse,
  type LimitPeriod,
} from '@kubik/contract';
import type { AppContext } from '../../context.ts';
import type { Db } from '../../db/index.ts';
import { conflict, notFound, type HttpError } from '../../lib/errors.ts';
import { toRoubles } from '../../lib/money.ts';
import type { User } from '../users/users.repo.ts';
import { enqueueDeliveries, type DeliveryRequest } from '../deliveries/deliveries.queue.ts';
import { giftRecipient, sendGiftLetter, type GiftRecipient } from '../purchases/purchases.gift.ts';
import { quotePromo, redeemPromo, type Redeemed } from '../purchases/purchases.promo.ts';
import { setPromoUseRef } from '../purchases/purchases.repo.ts';
import { lockPlayers, purchase, RetryPurchase, type LedgerLine } from '../purchases/purchases.service.ts';
import { dropListCache } from './shop.cache.ts';
import * as repo from './shop.repo.ts';
import { categorySales, commandsOf, deliveryChunks, priceNow, TEXTS } from './shop.service.ts';

export const CHECKOUT_TEXTS = {
  bought: 'Покупка совершена! Предметы будут выданы в игре.',
  gifted: (name: string) => `Подарок отправлен игроку ${name}! Предметы будут выданы ему в игре.`,
  limit: (name: string, limit: number, period: LimitPeriod, left: number) =>
    `«${name}»: не больше ${limit} шт. на игрока ${LIMIT_PERIOD_TEXT[period]}` + (left > 0 ? ` — можно ещё ${left}` : ' — лимит исчерпан'),
  itemChanged: 'Товар только что изменился: обновите страницу и подтвердите покупку ещё раз.',
  priceChanged: (total: number) =>
    `Цена изменилась (акция закончилась): теперь к оплате ${toRoubles(total)} ₽. Проверьте корзину и подтвердите ещё раз.`,
} as const;

const PERIOD_MS: Record<LimitPeriod, number> = { day: 86_400_000, week: 7 * 86_400_000, ever: Number.POSITIVE_INFINITY };

interface Line {
  shop_id: number;
  quantity: number;
}

interface PricedLine extends Line {
  item: Pick<repo.ItemRow, 'id' | 'name' | 'category' | 'item_id_minecraft' | 'server_id' | 'pieces' | 'commands'>;
  /** Kopecks per purchase now, and for the line. */
  unit: number;
  amount: number;
  /** null: an unlimited item, nothing to take. */
  stock: Stock | null;
}

interface Order {
  promoCode?: string;
  giftTo?: string;
  /** Roubles the player saw; a higher total now (a sale ended) is refused instead of charged. */
  expectedTotal?: number;
}

/** What a line's stock update must still find: the item as priced (its prices unchanged since). */
type Stock = Pick<repo.ItemRow, 'price' | 'sale_price' | 'sale_ends_at'>;

/**
 * Reads one line's item, checks that it can be bought now (on sale, in stock, within the player's
 * limit) and prices it. Nothing is locked or written: the stock of a counted item is taken last
 * (takeStock), an unlimited item's row is only read.
 */
async function readLine(
  trx: Db,
  line: Line,
  recipientId: number,
  now: number,
  sales: Awaited<ReturnType<typeof categorySales>>,
): Promise<PricedLine> {
  const row = await repo.itemForPurchase(trx, line.shop_id);
  const refused = row ? refusal(row, line.quantity) : notFound(TEXTS.noItem, { code: 'not_found' });
  if (refused || !row) throw refused;
  if (row.limit_per_player !== null) {
    const period = (row.limit_period in PERIOD_MS ? row.limit_period : 'ever') as LimitPeriod;
    const since = period === 'ever' ? 0 : now - PERIOD_MS[period];
    const left = Number(row.limit_per_player) - (await repo.boughtSince(trx, recipientId, row.id, since));
    if (line.quantity > left)
      throw conflict(CHECKOUT_TEXTS.limit(row.name, Number(row.limit_per_player), period, Math.max(0, left)), {
        code: 'limit_reached',
        field: 'quantity',
      });
  }
  const unit = priceNow(row, sales, now).price;
  return {
    ...line,
    item: { ...row, pieces: Number(row.pieces) },
    unit,
    amount: unit * line.quantity,
    stock:
      Number(row.unlimited) === 1
        ? null
        : {
            price: Number(row.price),
            sale_price: row.sale_price === null ? null : Number(row.sale_price),
            sale_ends_at: row.sale_ends_at === null ? null : Number(row.sale_ends_at),
          },
  };
}

/** Why `quantity` of this item cannot be bought now, or null when it can. */
function refusal(item: Pick<repo.ItemRow, 'status' | 'count' | 'unlimited' | 'deleted_at'>, quantity: number): HttpError | null {
  if (item.deleted_at !== null) return notFound(TEXTS.noItem, { code: 'not_found' });
  if (item.status !== ON_SALE) return conflict(TEXTS.notOnSale, { code: 'not_on_sale' });
  if (Number(item.unlimited) === 1 || Number(item.count) >= quantity) return null;
  if (Number(item.count) <= 0) return conflict(TEXTS.soldOut, { code: 'sold_out' });
  return conflict(TEXTS.notEnoughStock(Number(item.count)), { code: 'not_enough_stock', field: 'quantity' });
}

/**
 * Takes the stock of the counted lines (never below zero), in id order, as the purchase's last
 * writes. The update matches only the item as it was priced: a refusal that arose meanwhile (sold
 * out, taken off sale) is the player's answer; a price an admin changed meanwhile runs the purchase
 * again at the new price.
 */
async function takeStock(trx: Db, lines: PricedLine[], now: number): Promise<boolean> {
  let took = false;
  for (const line of lines) {
    const { stock } = line;
    if (!stock) continue;
    took = true;
    if (await repo.takeStock(trx, line.shop_id, line.quantity, stock, now)) continue;
    const item = await repo.itemSaleState(trx, line.shop_id);
    throw (
      (item ? refusal(item, line.quantity) : notFound(TEXTS.noItem, { code: 'not_found' })) ??
      new RetryPurchase(conflict(CHECKOUT_TEXTS.itemChanged, { code: 'sale_changed' }))
    );
  }
  return took;
}

function deliveriesFor(line: PricedLine, orderId: number, userId: number): DeliveryRequest[] {
  const { item, quantity } = line;
  const own = commandsOf(item);
  const delivery = (units: number): DeliveryRequest => ({
    source: 'shop',
    sourceId: orderId,
    userId,
    label: item.name,
    server: item.server_id ?? 'only',
    commands: own.length > 0 ? own : null,
    params: { item: item.item_id_minecraft, quantity: units * item.pieces, order: orderId },
    quantity: units,
  });
  // Its own commands run once for the whole purchase; the server's template once per stack.
  return own.length > 0 ? [delivery(quantity)] : deliveryChunks(quantity, item.pieces).map(delivery);
}

/**
 * Any shop purchase — one item (POST /api/shop/buy) or a cart (POST /api/shop/checkout) — as one
 * PurchaseSpec: every line's stock and per-player limit, the promo code's use and the balance
 * are taken in one transaction, so a refusal of any of them changes nothing. A gift records and
 * delivers to the recipient while the payer pays.
 */
async function order<A>(
  ctx: AppContext,
  payer: User,
  kind: 'shop' | 'cart',
  request: Record<string, unknown>,
  lines: Line[],
  opts: Order,
  key: string | undefined,
  answer: (r: { balance: number; orderIds: number[]; total: number; discount: number; recipient: GiftRecipient | null }) => A,
): Promise<A> {
  // Who gets it is settled before anything is taken (a refused name costs one read).
  const recipient = opts.giftTo ? await giftRecipient(ctx, payer.id, opts.giftTo) : null;
  const recipientId = recipient?.id ?? payer.id;
  // In id order, so stock rows are locked in one order by every purchase (no deadlock between carts).
  const sorted = [...lines].sort((a, b) => a.shop_id - b.shop_id);
  let stockTaken = false;
  const result = await purchase(ctx, {
    kind,
    userId: payer.id,
    key,
    request,
    async price(trx, now) {
      // The payer's and the recipient's rows, in id order: limits and promo uses are counted under them.
      await lockPlayers(trx, ctx.dbKind, [payer.id, recipientId]);
      const sales = await categorySales(trx, now);
      const priced: PricedLine[] = [];
      for (const line of sorted) priced.push(await readLine(trx, line, recipientId, now, sales));
      return { lines: priced, price: priced.reduce((s, l) => s + l.amount, 0), redeemed: null as Redeemed | null };
    },
    async discount(trx, priced, now) {
      if (opts.promoCode) {
        priced.redeemed = await redeemPromo(trx, {
          dbKind: ctx.dbKind,
          code: opts.promoCode,
          userId: payer.id,
          target: 'shop',
          lines: priced.lines.map((l) => ({ amount: l.amount, itemId: l.item.id, category: l.item.category })),
          ref: kind,
          now,
        });
      }
      const off = priced.redeemed?.discount ?? 0;
      if (opts.expectedTotal !== undefined && priced.price - off > Math.round(opts.expectedTotal * 100))
        throw conflict(CHECKOUT_TEXTS.priceChanged(priced.price - off), {
          code: 'sale_changed',
          extra: { total: toRoubles(priced.price - off) },
        });
      return off;
    },
    async record(trx, priced, charge, now) {
      const ledger: LedgerLine[] = [];
      const orderIds: number[] = [];
      for (const [i, line] of priced.lines.entries()) {
        const total = line.amount - (priced.redeemed?.perLine[i] ?? 0);
        const orderId = await repo.insertOrder(trx, {
          user_id: recipientId,
          paid_by: recipient ? payer.id : null,
          item_id: line.item.id,
          item_name: line.item.name,
          item_id_minecraft: line.item.item_id_minecraft,
          price: line.unit,
          quantity: line.quantity,
          total,
          pieces: line.item.pieces,
          created_at: now,
        });
        orderIds.push(orderId);
        const gift = recipient ? ` (подарок ${recipient.username})` : '';
        ledger.push({ ref: `order:${orderId}`, note: `${line.item.name} × ${line.quantity}${gift}`, amount: total });
      }
      if (priced.redeemed)
        await setPromoUseRef(
          trx,
          priced.redeemed.useId,
          orderIds
            .map((id) => `order:${id}`)
            .join(',')
            .slice(0, 64),
        );
      return { lines: priced.lines, orderIds, charge, ledger };
    },
    async deliver(trx, recorded, balance, now) {
      const requests = recorded.lines.flatMap((line, i) => deliveriesFor(line, recorded.orderIds[i]!, recipientId));
      await enqueueDeliveries(trx, requests);
      if (recipient) {
        const what = recorded.lines.map((l) => `${l.item.name} × ${l.quantity * l.item.pieces} шт.`).join(', ');
        await sendGiftLetter(trx, ctx, { recipient, from: payer.username, what, link: '/shop', now });
      }
      return answer({ balance, orderIds: recorded.orderIds, total: recorded.charge.total, discount: recorded.charge.discount, recipient });
    },
    async take(trx, priced, now) {
      stockTaken = await takeStock(trx, priced.lines, now);
    },
  });
  // The public list shows stock: only a counted item's purchase changes it.
  if (stockTaken) await dropListCache(ctx);
  return result;
}

/**
 * GET /api/shop/promo/{code}?lines=…: the cart's price now and what the code takes off it, read
 * and counted by the purchase's own steps (each line as readLine prices and refuses it, the code
 * as the purchases core applies it), so the total shown before «Подтвердить» is the one taken.
 * Nothing is locked or written.
 */
export async function previewLines(
  ctx: AppContext,
  user: User,
  code: string,
  lines: Line[],
): Promise<{ price: number; discount: number; total: number }> {
  const now = Date.now();
  const sales = await categorySales(ctx.db, now);
  const priced: PricedLine[] = [];
  for (const line of [...lines].sort((a, b) => a.shop_id - b.shop_id)) priced.push(await readLine(ctx.db, line, user.id, now, sales));
  const price = priced.reduce((s, l) => s + l.amount, 0);
  const promo = await quotePromo(ctx.db, {
    code,
    userId: user.id,
    target: 'shop',
    lines: priced.map((l) => ({ amount: l.amount, itemId: l.item.id, category: l.item.category })),
    now,
  });
  return { price: toRoubles(price), discount: toRoubles(promo.discount), total: toRoubles(price - promo.discount) };
}

const extras = (b: { promo_code?: string; gift_to?: string }) => ({
  ...(b.promo_code !== undefined && { promo_code: b.promo_code.toLowerCase() }),
  ...(b.gift_to !== undefined && { gift_to: b.gift_to.toLowerCase() }),
});

/** POST /api/shop/buy: one item (the spec's call), with an optional promo code and gift recipient. */
export function buy(ctx: AppContext, user: User, body: BuyBody, key: string | undefined): Promise<BuyResponse> {
  return order(
    ctx,
    user,
    'shop',
    { shop_id: body.shop_id, quantity: body.quantity, ...extras(body) },
    [{ shop_id: body.shop_id, quantity: body.quantity }],
    { promoCode: body.promo_code, giftTo: body.gift_to },
    key,
    (r) => ({
      new_balance: toRoubles(r.balance),
      message: r.recipient ? CHECKOUT_TEXTS.gifted(r.recipient.username) : TEXTS.bought,
      order_id: r.orderIds[0]!,
    }),
  );
}

/** POST /api/shop/checkout: the cart, all or nothing. */
export function checkout(ctx: AppContext, user: User, body: CheckoutBody, key: string | undefined): Promise<CheckoutResponse> {
  return order(
    ctx,
    user,
    'cart',
    {
      lines: [...body.lines].sort((a, b) => a.shop_id - b.shop_id),
      ...extras(body),
      ...(body.expected_total !== undefined && { expected_total: body.expected_total }),
    },
    body.lines,
    { promoCode: body.promo_code, giftTo: body.gift_to, expectedTotal: body.expected_total },
    key,
    (r) => ({
      new_balance: toRoubles(r.balance),
      total: toRoubles(r.total),
      discount: toRoubles(r.discount),
      order_ids: r.orderIds,
      message: r.recipient ? CHECKOUT_TEXTS.gifted(r.recipient.username) : CHECKOUT_TEXTS.bought,
    }),
  );
}
