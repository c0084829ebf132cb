import { isRoubles, periodTotalKopecks, type PrivilegeBuyResponse, type PrivilegeQuote } from '@kubik/contract';
import type { AppContext } from '../../context.ts';
import type { Db } from '../../db/index.ts';
import { badRequest, conflict, notFound } from '../../lib/errors.ts';
import { toRoubles } from '../../lib/money.ts';
import { amountNow, periodsOf } from '../donate/donate.service.ts';
import * as donateRepo from '../donate/donate.repo.ts';
import { giftRecipient, sendGiftLetter } from '../purchases/purchases.gift.ts';
import { quotePromo, redeemPromo } from '../purchases/purchases.promo.ts';
import { lockPlayers, purchase } from '../purchases/purchases.service.ts';
import type { User } from '../users/users.repo.ts';
import { place, plan, queueGrant, type Plan } from './privileges.placement.ts';
import * as repo from './privileges.repo.ts';
import { MONTH_MS, TEXTS, type TierRow } from './privileges.service.ts';

interface TierPrice {
  tier: TierRow;
  /** Kopecks of the period, its discount applied. */
  price: number;
  plan: Plan;
}

/** The tier's price for `months` now (its sale and the period's discount applied); refuses a tier or a period not sold. */
export async function periodPrice(db: Db, tierId: number, months: number, now: number) {
  const tiers = await donateRepo.listTiers(db);
  const tier = tiers.find((t) => t.id === tierId);
  if (!tier) throw notFound(TEXTS.notFound);
  if (!isRoubles(tier.currency)) throw conflict(TEXTS.notSold, { code: 'not_sold' });
  const period = periodsOf(tier).find((p) => p.months === months);
  if (!period) throw badRequest(TEXTS.periodNotSold(months), { code: 'period_not_sold', field: 'months' });
  return { tier, tiers, price: periodTotalKopecks(amountNow(tier, now), months, period.discount) };
}

/** The tier's price for `months` and what buying it would do for this player now; refuses what the purchase would refuse. */
async function priceTier(db: Db, userId: number, tierId: number, months: number, now: number): Promise<TierPrice> {
  const { tier, tiers, price } = await periodPrice(db, tierId, months, now);
  return { tier, price, plan: await plan(db, { userId, tier, tiers, addMs: months * MONTH_MS, now, creditUpTo: price }) };
}

/**
 * GET /api/donate/{id}/quote: what the purchase would cost and do, by the same rules as the
 * purchase, now — with a promo code, taken off after the upgrade credit as the purchase takes it.
 * As a gift (`gift`), the period's price as a new privilege: the recipient's own privilege, which
 * a credit would come from, is not the buyer's to look at.
 */
export async function quote(
  db: Db,
  userId: number,
  tierId: number,
  months: number,
  opts: { promoCode?: string; gift?: boolean } = {},
): Promise<PrivilegeQuote> {
  const now = Date.now();
  const { price, plan: p } = opts.gift
    ? {
        ...(await periodPrice(db, tierId, months, now)),
        plan: { kind: 'new' as const, credit: 0, replaces: null, startsAt: now, expiresAt: now + months * MONTH_MS },
      }
    : await priceTier(db, userId, tierId, months, now);
  const promoCode = opts.promoCode;
  const left = Math.max(0, price - p.credit);
  const promo = promoCode ? await quotePromo(db, { code: promoCode, userId, target: 'donate', lines: [{ amount: left }], now }) : null;
  return {
    tier_id: tierId,
    months,
    price: toRoubles(price),
    credit: toRoubles(p.credit),
    total: toRoubles(left - (promo?.discount ?? 0)),
    promo: promo && { code: promo.code, text: promo.text, discount: toRoubles(promo.discount) },
    kind: p.kind,
    replaces: p.replaces && { title: p.replaces.title, unused_days: p.replaces.unusedDays },
    starts_at: p.startsAt,
    expires_at: p.expiresAt,
  };
}

/**
 * POST /api/donate/{id}/buy, through the purchases core: under the player's lock the privilege
 * is placed (new, extended from its end, or replacing a lower tier with its unused days credited),
 * the balance debited with its ledger row, and the grant commands queued. Anything refused leaves
 * nothing behind. A promo code comes off after the upgrade credit; a gift (`gift_to`) is placed
 * for the recipient — by the same rules, against their privilege — while the payer pays.
 */
export async function buy(
  ctx: AppContext,
  payer: Pick<User, 'id' | 'username'>,
  tierId: number,
  months: number,
  key: string | undefined,
  extras: { promo_code?: string; gift_to?: string } = {},
): Promise<PrivilegeBuyResponse> {
  const recipient = extras.gift_to ? await giftRecipient(ctx, payer.id, extras.gift_to) : null;
  const holderId = recipient?.id ?? payer.id;
  return purchase(ctx, {
    kind: 'tier',
    userId: payer.id,
    key,
    request: {
      tier_id: tierId,
      months,
      ...(extras.promo_code !== undefined && { promo_code: extras.promo_code.toLowerCase() }),
      ...(extras.gift_to !== undefined && { gift_to: extras.gift_to.toLowerCase() }),
    },
    async price(trx, now) {
      await lockPlayers(trx, ctx.dbKind, [payer.id, holderId]);
      return priceTier(trx, holderId, tierId, months, now);
    },
    discount: async (trx, priced, now) => {
      let off = priced.plan.credit;
      if (extras.promo_code) {
        const left = Math.max(0, priced.price - off);
        const promo = await redeemPromo(trx, {
          dbKind: ctx.dbKind,
          code: extras.promo_code,
          userId: payer.id,
          target: 'donate',
          lines: [{ amount: left }],
          ref: `tier:${tierId}`,
          now,
        });
        off += promo.discount;
      }
      return off;
    },
    async record(trx, { tier, plan: p }, charge, now) {
      const privilegeId = await place(trx, p, { userId: holderId, tier, now, grantedBy: null });
      const purchaseId = await repo.insertPurchase(trx, {
        privilege_id: privilegeId,
        user_id: holderId,
        paid_by: recipient ? payer.id : null,
        tier_id: tier.id,
        months,
        price: charge.price,
        credit: p.credit,
        total: charge.total,
        replaced_id: p.kind === 'upgrade' ? (p.current?.id ?? null) : null,
        created_at: now,
      });
      const credited = p.credit > 0 ? `, зачтено ${toRoubles(p.credit)} ₽` : '';
      const gift = recipient ? ` (подарок ${recipient.username})` : '';
      return {
        tier,
        plan: p,
        privilegeId,
        ledger: { ref: `privilege:${purchaseId}`, note: `${tier.title} на ${months} мес.${credited}${gift}` },
      };
    },
    async deliver(trx, { tier, plan: p, privilegeId }, balance, now) {
      await queueGrant(trx, tier, privilegeId, holderId, p.expiresAt, now);
      if (recipient) {
        await sendGiftLetter(trx, ctx, {
          recipient,
          from: payer.username,
          what: `привилегия ${tier.title} на ${months} мес.`,
          link: '/donate',
          now,
        });
        return {
          new_balance: toRoubles(balance),
          message: TEXTS.gifted(tier.title, recipient.username),
          expires_at: p.expiresAt,
          privilege_id: privilegeId,
        };
      }
      const message =
        p.kind === 'extend'
          ? TEXTS.extended(tier.title)
          : p.kind === 'upgrade'
            ? TEXTS.upgraded(p.current?.tier_title ?? '', tier.title)
            : TEXTS.bought(tier.title);
      return { new_balance: toRoubles(balance), message, expires_at: p.expiresAt, privilege_id: privilegeId };
    },
  });
}
