import { type PromoKind, type PromoPreview, type PromoScope } from '@kubik/contract';
import type { Db, DbKind } from '../../db/index.ts';
import { badRequest, conflict, notFound, type HttpError } from '../../lib/errors.ts';
import { toRoubles } from '../../lib/money.ts';
import { insertPromoUse, promoById, promoByKey, promoUsesBy, takePromoUse } from './purchases.repo.ts';
import { lockPlayer } from './purchases.service.ts';
import type { PromoCodesTable } from './purchases.tables.ts';
import type { Selectable } from 'kysely';

/*
 * Promo codes, applied inside a purchase's own transaction (the purchases core's discount step),
 * so a refused purchase takes its use back. The total number of uses is taken by a conditional
 * update (`uses < max_uses`), so however many race for the last uses exactly that many get them.
 * The per-player count is read only under the payer's row lock (lockPlayer), taken by the function
 * that counts: on PostgreSQL two transactions of one player — two purchases, or two top-ups
 * credited by two instances at once — would otherwise both count the uses before either wrote
 * its own, and both pass a `per_player` of 1.
 */

export const PROMO_TEXTS = {
  notFound: 'Промокод не найден',
  notStarted: 'Промокод ещё не действует',
  expired: 'Срок действия промокода истёк',
  exhausted: 'Промокод больше не действует: его использовали максимальное число раз',
  used: 'Вы уже использовали этот промокод',
  topupOnly: 'Этот промокод действует только при пополнении баланса',
  notTopup: 'Этот промокод не даёт бонуса к пополнению: введите его в магазине или при покупке привилегии',
  notShop: 'Этот промокод не действует в магазине',
  notDonate: 'Этот промокод не действует на привилегии',
  notItems: 'Промокод не действует на эти товары',
  minTotal: (rub: number) => `Промокод действует при покупке от ${formatRub(rub)}`,
} as const;

const rubFormat = new Intl.NumberFormat('ru-RU', { maximumFractionDigits: 2 });
function formatRub(rub: number): string {
  return `${rubFormat.format(rub)}\u00a0₽`;
}

export type PromoRow = Selectable<PromoCodesTable>;

/** The stored form of a code: letters compared without case (JS lower-casing, as SQLite's lower() knows only ASCII). */
export const promoKey = (code: string) => code.trim().toLowerCase();

export function findPromo(db: Db, code: string): Promise<PromoRow | undefined> {
  return promoByKey(db, promoKey(code));
}

/** What a code's own state refuses, before anything is bought: unknown, disabled, not yet, no longer, used up. */
function stateProblem(row: PromoRow | undefined, now: number): HttpError | null {
  if (!row || row.disabled_at !== null) return notFound(PROMO_TEXTS.notFound, { code: 'promo_not_found', field: 'promo_code' });
  if (row.starts_at !== null && Number(row.starts_at) > now)
    return conflict(PROMO_TEXTS.notStarted, { code: 'promo_not_active', field: 'promo_code' });
  if (row.ends_at !== null && Number(row.ends_at) <= now)
    return conflict(PROMO_TEXTS.expired, { code: 'promo_not_active', field: 'promo_code' });
  if (row.max_uses !== null && Number(row.uses) >= Number(row.max_uses))
    return conflict(PROMO_TEXTS.exhausted, { code: 'promo_exhausted', field: 'promo_code' });
  return null;
}

function scopeProblem(row: PromoRow, target: 'shop' | 'donate' | 'topup'): HttpError | null {
  const kind = row.kind as PromoKind;
  if (target === 'topup')
    return kind === 'topup_bonus' ? null : conflict(PROMO_TEXTS.notTopup, { code: 'promo_not_applicable', field: 'promo_code' });
  if (kind === 'topup_bonus') return conflict(PROMO_TEXTS.topupOnly, { code: 'promo_not_applicable', field: 'promo_code' });
  const scope = row.applies_to as PromoScope;
  if (scope !== 'all' && scope !== target)
    return conflict(target === 'shop' ? PROMO_TEXTS.notShop : PROMO_TEXTS.notDonate, { code: 'promo_not_applicable', field: 'promo_code' });
  return null;
}

/** «Скидка 10 % на товары магазина», «Скидка 50 ₽», «+15 % к пополнению баланса». */
export function promoText(row: Pick<PromoRow, 'kind' | 'value' | 'applies_to'>): string {
  const value = Number(row.value);
  if (row.kind === 'topup_bonus') return `+${value} % к пополнению баланса`;
  const off = row.kind === 'percent' ? `Скидка ${value} %` : `Скидка ${formatRub(toRoubles(value))}`;
  const on = row.applies_to === 'shop' ? ' на товары магазина' : row.applies_to === 'donate' ? ' на привилегии' : '';
  return off + on;
}

/** GET /api/shop/promo/{code}: what the code gives this player now; refuses as a purchase with it would (except its lines). */
export async function previewPromo(db: Db, code: string, userId: number, now = Date.now()): Promise<PromoPreview> {
  const row = await findPromo(db, code);
  const problem = stateProblem(row, now);
  if (problem || !row) throw problem ?? notFound(PROMO_TEXTS.notFound, { code: 'promo_not_found' });
  if (row.kind !== 'topup_bonus' && (await promoUsesBy(db, row.id, userId)) >= Number(row.per_player))
    throw conflict(PROMO_TEXTS.used, { code: 'promo_used', field: 'promo_code' });
  return {
    code: row.code,
    kind: row.kind as PromoKind,
    value: row.kind === 'fixed' ? toRoubles(Number(row.value)) : Number(row.value),
    applies_to: row.applies_to as PromoScope,
    item_ids: row.item_ids ? (JSON.parse(row.item_ids) as number[]) : null,
    category: row.category,
    min_total: row.min_total === null ? null : toRoubles(Number(row.min_total)),
    ends_at: row.ends_at === null ? null : Number(row.ends_at),
    text: promoText(row),
  };
}

/** One priced line of a purchase, in kopecks; item and category say what a code limited to them covers. */
export interface PromoLine {
  amount: number;
  itemId?: number;
  category?: string;
}

/** What a code takes off the lines, in kopecks: in all, and from each line (in the order given), adding up. */
export interface PromoDiscount {
  discount: number;
  perLine: number[];
}

/**
 * How much a code takes off these lines — the one count of it, for the purchase that redeems the
 * code and for the preview that shows the price before «Подтвердить». Refuses lines the code does
 * not cover at all, and a total below the code's minimum.
 */
function discountOf(row: PromoRow, lines: PromoLine[]): PromoDiscount {
  const items = row.item_ids ? new Set(JSON.parse(row.item_ids) as number[]) : null;
  const category = row.category === null ? null : row.category.trim().toLowerCase();
  const covered = lines.map(
    (l) =>
      (items === null || (l.itemId !== undefined && items.has(l.itemId))) && (category === null || l.category?.toLowerCase() === category),
  );
  const base = lines.reduce((s, l, i) => s + (covered[i] ? l.amount : 0), 0);
  if (!covered.some(Boolean)) throw conflict(PROMO_TEXTS.notItems, { code: 'promo_not_applicable', field: 'promo_code' });
  if (row.min_total !== null && base < Number(row.min_total))
    throw conflict(PROMO_TEXTS.minTotal(toRoubles(Number(row.min_total))), { code: 'promo_min_total', field: 'promo_code' });
  const discount = Math.min(base, row.kind === 'percent' ? Math.floor((base * Number(row.value)) / 100) : Number(row.value));
  // Spread over the covered lines in proportion; the last covered line takes the rounding.
  const perLine = lines.map(() => 0);
  let left = discount;
  const last = covered.lastIndexOf(true);
  lines.forEach((l, i) => {
    if (!covered[i]) return;
    const part = i === last ? left : Math.floor((discount * l.amount) / Math.max(1, base));
    perLine[i] = part;
    left -= part;
  });
  return { discount, perLine };
}

/** A code as a purchase would apply it now, without using it: what it is, and the kopecks it takes off. */
export interface PromoQuote {
  code: string;
  text: string;
  discount: number;
}

/**
 * The preview of a code on a purchase (the shop's cart, a tier's period): refuses exactly as the
 * purchase would — unknown, not started, ended, used up, used by this player, not for this kind
 * of purchase, not for these items, below its minimum — and otherwise says what comes off.
 * Nothing is written: the purchase checks and counts it again in its own transaction.
 */
export async function quotePromo(
  db: Db,
  input: { code: string; userId: number; target: 'shop' | 'donate'; lines: PromoLine[]; now?: number },
): Promise<PromoQuote> {
  const row = await findPromo(db, input.code);
  const problem = stateProblem(row, input.now ?? Date.now()) ?? (row ? scopeProblem(row, input.target) : null);
  if (problem || !row) throw problem ?? notFound(PROMO_TEXTS.notFound, { code: 'promo_not_found', field: 'promo_code' });
  const { discount } = discountOf(row, input.lines);
  if ((await promoUsesBy(db, row.id, input.userId)) >= Number(row.per_player))
    throw conflict(PROMO_TEXTS.used, { code: 'promo_used', field: 'promo_code' });
  return { code: row.code, text: promoText(row), discount };
}

export interface Redeemed {
  promoId: number;
  /** Kopecks off in all. */
  discount: number;
  /** Kopecks off each line (in the order given), adding up to `discount`. */
  perLine: number[];
  /** The promo_uses row (its ref is set once the orders exist). */
  useId: number;
}

/**
 * Applies a code to a purchase in its transaction: checks it, counts the use (conditionally, so
 * the last uses go to exactly as many), records who used it for what, and says how much comes
 * off each line. Throws (and the caller's transaction rolls back) when the code does not apply.
 */
export async function redeemPromo(
  trx: Db,
  input: { dbKind: DbKind; code: string; userId: number; target: 'shop' | 'donate'; lines: PromoLine[]; ref: string; now: number },
): Promise<Redeemed> {
  // The purchase holds the payer's lock already (its price step), so this costs no wait; taking it
  // here too keeps the count below safe whichever purchase calls.
  await lockPlayer(trx, input.dbKind, input.userId);
  const row = await findPromo(trx, input.code);
  const problem = stateProblem(row, input.now) ?? (row ? scopeProblem(row, input.target) : null);
  if (problem || !row) throw problem ?? notFound(PROMO_TEXTS.notFound, { code: 'promo_not_found' });

  const { discount, perLine } = discountOf(row, input.lines);
  if ((await promoUsesBy(trx, row.id, input.userId)) >= Number(row.per_player))
    throw conflict(PROMO_TEXTS.used, { code: 'promo_used', field: 'promo_code' });

  await takeUse(trx, row.id, input.now);
  const total = input.lines.reduce((s, l) => s + l.amount, 0) - discount;
  const useId = await insertPromoUse(trx, {
    promo_id: row.id,
    user_id: input.userId,
    target: input.target,
    ref: input.ref,
    discount,
    total,
    created_at: input.now,
  });
  return { promoId: row.id, discount, perLine, useId };
}

/** The conditional count of one use: nothing is taken once max_uses is reached (a racing purchase is refused). */
async function takeUse(trx: Db, promoId: number, now: number): Promise<void> {
  if (!(await takePromoUse(trx, promoId, now))) throw conflict(PROMO_TEXTS.exhausted, { code: 'promo_exhausted', field: 'promo_code' });
}

/** A top-up's code, checked when the payment is made (its use is counted when the money arrives). */
export async function checkTopupPromo(db: Db, code: string, userId: number, now = Date.now()): Promise<number> {
  const row = await findPromo(db, code);
  const problem = stateProblem(row, now) ?? (row ? scopeProblem(row, 'topup') : null);
  if (problem || !row) throw problem ?? badRequest(PROMO_TEXTS.notFound, { code: 'promo_not_found' });
  if ((await promoUsesBy(db, row.id, userId)) >= Number(row.per_player))
    throw conflict(PROMO_TEXTS.used, { code: 'promo_used', field: 'promo_code' });
  return row.id;
}

/**
 * The bonus a top-up's code adds when its payment is credited, in the crediting transaction: the
 * use is counted then; a code used up, disabled or ended meanwhile gives nothing (the payment
 * itself is credited all the same).
 */
export async function redeemTopupPromo(
  trx: Db,
  input: { dbKind: DbKind; promoId: number; userId: number; amount: number; ref: string; now: number },
): Promise<number> {
  const row = await promoById(trx, input.promoId);
  if (!row || row.kind !== 'topup_bonus' || stateProblem(row, input.now)) return 0;
  // Two payments of one player credited at once (two instances answering their return pages)
  // each count the uses only after the other has committed its own.
  await lockPlayer(trx, input.dbKind, input.userId);
  if ((await promoUsesBy(trx, row.id, input.userId)) >= Number(row.per_player)) return 0;
  try {
    await takeUse(trx, row.id, input.now);
  } catch {
    return 0;
  }
  const bonus = Math.floor((input.amount * Number(row.value)) / 100);
  await insertPromoUse(trx, {
    promo_id: row.id,
    user_id: input.userId,
    target: 'topup',
    ref: input.ref,
    discount: bonus,
    total: input.amount,
    created_at: input.now,
  });
  return bonus;
}
