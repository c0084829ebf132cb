import { randomUUID } from 'node:crypto';
import {
  type ConsentKind,
  isRoubles,
  periodTotalKopecks,
  SUBSCRIPTION_STATE_TEXT,
  SUBSCRIPTION_TEXTS,
  type AdminSubscriptionsResponse,
  type SubscriptionCreated,
  type SubscriptionProvider,
  type SubscriptionState,
  type UserSubscription,
} from '@kubik/contract';
import type { AppContext } from '../../context.ts';
import type { Db } from '../../db/index.ts';
import { badRequest, conflict, HttpError, notFound } from '../../lib/errors.ts';
import { toRoubles } from '../../lib/money.ts';
import { ProviderError } from '../../lib/payments/index.ts';
import {
  customerKeyOf,
  tbankRecurring,
  tbankSavedMethod,
  yookassaRecurring,
  yookassaSavedMethod,
  type RecurringAdapter,
  type SavedMethod,
} from '../../lib/payments/recurring.ts';
import { postLedger } from '../ledger/ledger.service.ts';
import { notify as tellPlayer } from '../notices/notices.service.ts';
import { amountNow } from '../donate/donate.service.ts';
import * as donateRepo from '../donate/donate.repo.ts';
import { formatRub, recordEvent } from '../payments/payments.repo.ts';
import * as paymentsRepo from '../payments/payments.repo.ts';
import { paymentsService } from '../payments/payments.service.ts';
import { goodsLine, receiptFiscal } from '../payments/receipts.service.ts';
import { place, plan, queueGrant } from '../privileges/privileges.placement.ts';
import * as privilegesRepo from '../privileges/privileges.repo.ts';
import { MONTH_MS } from '../privileges/privileges.service.ts';
import { paymentConsentsNeeded, publishedVersions, recordConsents, requireConsents } from '../site/legal.service.ts';
import { siteName } from '../site/site.settings.ts';
import type { User } from '../users/users.repo.ts';
import * as repo from './subscriptions.repo.ts';
import { LIVE, liveKey, type SubscriptionRow } from './subscriptions.repo.ts';

/** A period is charged this long before the paid privilege ends, so a success keeps it running without a gap. */
export const CHARGE_LEAD_MS = 86_400_000;

/** The first payment of a subscription nobody paid for this long no longer holds the player's place. */
export const FIRST_PAYMENT_EXPIRY_MS = 24 * 3_600_000;

const iso = (ms: number | null) => (ms === null ? null : new Date(Number(ms)).toISOString());

/** The providers' recurring side, built from the owner's connection settings (Платежи → Подключения). */
export async function recurringOf(ctx: AppContext, provider: SubscriptionProvider): Promise<RecurringAdapter | null> {
  const e = (await paymentsService(ctx).registry.effective())[provider];
  if (!e?.connected) return null;
  const url = (e.fields.api_url ?? '').replace(/\/+$/, '');
  if (provider === 'yookassa')
    return yookassaRecurring({ shopId: e.fields.shop_id!, secretKey: e.secrets.secret_key!, apiUrl: url, receipts: e.receipts });
  return tbankRecurring({ terminalKey: e.fields.terminal_key!, password: e.secrets.password!, apiUrl: url, receipts: e.receipts });
}

export function toUserSubscription(s: SubscriptionRow): UserSubscription {
  const state = s.state as SubscriptionState;
  return {
    id: s.id,
    tier_id: Number(s.tier_id),
    title: s.title,
    provider: s.provider as SubscriptionProvider,
    state,
    state_text: SUBSCRIPTION_STATE_TEXT[state] ?? s.state,
    amount: toRoubles(Number(s.amount)),
    months: Number(s.months),
    next_charge_at: state === 'active' || state === 'past_due' ? iso(s.next_charge_at) : null,
    paid_until: iso(s.paid_until),
    card: s.card_last4,
    created_at: new Date(Number(s.created_at)).toISOString(),
    canceled_at: iso(s.canceled_at),
  };
}

/** The tier as a subscription offers it now: its price for the period, or a refusal beside the tier. */
async function offered(db: Db, tierId: number, now: number) {
  const tier = await donateRepo.findTier(db, tierId);
  if (!tier) throw notFound(SUBSCRIPTION_TEXTS.tierNotFound, { code: 'tier_not_found' });
  if (Number(tier.subscription) !== 1 || !isRoubles(tier.currency))
    throw badRequest(SUBSCRIPTION_TEXTS.notOffered, { code: 'not_offered', field: 'tier_id' });
  const months = Number(tier.subscription_months);
  return { tier, months, amount: periodTotalKopecks(amountNow(tier, now), months, 0) };
}

/**
 * POST /api/donate/{id}/subscribe: one live subscription per player and tier — the unique
 * live_key lets one insert in, so a double click finds the first and gets its payment link. A
 * pending one whose first payment was canceled or never paid gives its place up first.
 */
/** What the subscribing request ticked, and where it came from (kept with each acceptance). */
export interface SubscribeConsent {
  consents?: readonly ConsentKind[];
  ip: string | null;
  userAgent: string | null;
}

export async function subscribe(
  ctx: AppContext,
  user: User,
  tierId: number,
  provider: SubscriptionProvider,
  consent: SubscribeConsent = { ip: null, userAgent: null },
): Promise<SubscriptionCreated> {
  const { db } = ctx;
  const now = Date.now();
  const { tier, months, amount } = await offered(db, tierId, now);
  // The first payment of a subscription is a payment like a top-up: once the owner has published
  // the offer or the policy it needs the same consents (a new offer version asks again).
  const legal = Object.keys(await publishedVersions(db)).some((k) => k === 'offer' || k === 'privacy');
  if (legal) requireConsents(await paymentConsentsNeeded(db, user.id), consent.consents);
  const adapter = await recurringOf(ctx, provider);
  if (!adapter) throw badRequest(SUBSCRIPTION_TEXTS.providerOff, { code: 'provider_off', field: 'provider' });
  // A higher tier running refuses the subscription as it refuses the purchase (409 downgrade).
  await plan(db, { userId: user.id, tier, tiers: await donateRepo.listTiers(db), addMs: months * MONTH_MS, now, creditUpTo: 0 });

  const id = randomUUID();
  const paymentId = randomUUID();
  const fiscal = await receiptFiscal(ctx);
  const item = `Подписка ${tier.title} на ${months} мес.`;
  const line = await goodsLine(db, { kind: 'tier', id: tierId }, item, amount, fiscal.vatCode);
  const withReceipt = (await paymentsService(ctx).registry.effective())[provider]?.receipts ?? false;
  const inserted = await db.transaction().execute(async (trx) => {
    const live = await repo.liveOf(trx, user.id, tierId);
    if (live?.state === 'pending') {
      const first = await repo.firstCharge(trx, live.id);
      if (!first || first.status === 'canceled' || Number(first.created_at) < now - FIRST_PAYMENT_EXPIRY_MS)
        await repo.moveSubscription(trx, live.id, ['pending'], { state: 'ended', live_key: null, ended_at: now, updated_at: now });
    }
    const fresh = await repo.insertLive(trx, {
      id,
      user_id: user.id,
      tier_id: tierId,
      title: tier.title.slice(0, 100),
      provider,
      state: 'pending',
      live_key: liveKey(user.id, tierId),
      amount,
      months,
      method_id: null,
      card_last4: null,
      periods: 0,
      paid_until: null,
      next_charge_at: null,
      reminded_period: 0,
      failures: 0,
      failing_since: null,
      created_at: now,
      updated_at: now,
      canceled_at: null,
      ended_at: null,
    });
    if (!fresh) return false;
    if (legal && consent.consents?.length)
      await recordConsents(trx, user.id, consent.consents, { ip: consent.ip, userAgent: consent.userAgent, source: 'payment' });
    await paymentsRepo.insertPayment(trx, {
      id: paymentId,
      user_id: user.id,
      provider,
      amount,
      status: 'pending',
      promo_id: null,
      created_at: now,
      updated_at: now,
      payer_ip: null,
      payer_device: null,
      // The period's price, paid directly: its receipt goes with the payment, and it is no top-up.
      purpose: 'goods',
      receipt: withReceipt ? JSON.stringify({ email: user.email, lines: [line] }) : null,
    });
    await repo.insertCharge(trx, {
      payment_id: paymentId,
      subscription_id: id,
      period: 1,
      attempt: 1,
      amount,
      status: 'pending',
      failure: null,
      created_at: now,
      paid_at: null,
    });
    return true;
  });
  if (!inserted) {
    const live = await repo.liveOf(db, user.id, tierId);
    if (!live) throw conflict(SUBSCRIPTION_TEXTS.already, { code: 'already_subscribed' });
    if (live.state !== 'pending') throw conflict(SUBSCRIPTION_TEXTS.already, { code: 'already_subscribed' });
    const first = await repo.firstCharge(db, live.id);
    return {
      id: live.id,
      payment_id: first?.payment_id ?? '',
      state: 'pending',
      confirmation_url: first?.confirmation_url ?? null,
      amount: toRoubles(Number(live.amount)),
      months: Number(live.months),
    };
  }

  const name = await siteName(ctx);
  try {
    const created = await adapter.start({
      id: paymentId,
      amountKopecks: amount,
      description: `Подписка ${tier.title} для ${user.username} (${name})`,
      returnUrl: `${ctx.config.publicUrl}/profile?subscription=${id}`,
      notificationUrl: paymentsService(ctx).registry.notificationUrl(provider),
      email: user.email,
      vatCode: fiscal.vatCode,
      customerKey: customerKeyOf(user.id),
      item,
      line,
      taxSystemCode: fiscal.fiscal.taxSystemCode,
    });
    await recordEvent(db, {
      paymentId,
      provider,
      kind: 'create',
      outcome: `подписка: создан у провайдера${created.state ? `: ${created.state.providerStatus}` : ''}`,
      body: created.state?.raw ?? created.confirmationUrl,
    });
    await paymentsRepo.recordCreated(db, paymentId, {
      provider_payment_id: created.providerPaymentId,
      confirmation_url: created.confirmationUrl,
      provider_status: created.state?.providerStatus ?? null,
      updated_at: Date.now(),
    });
    return { id, payment_id: paymentId, state: 'pending', confirmation_url: created.confirmationUrl, amount: toRoubles(amount), months };
  } catch (err) {
    await recordEvent(db, {
      paymentId,
      provider,
      kind: 'error',
      outcome: `подписка не создана: ${(err as Error).message}`,
      body: err instanceof ProviderError ? (err.raw ?? undefined) : undefined,
    });
    await paymentsRepo.cancelPending(db, paymentId, Date.now());
    await repo.moveSubscription(db, id, ['pending'], { state: 'ended', live_key: null, ended_at: Date.now(), updated_at: Date.now() });
    throw new HttpError(502, 'Платёжная система не ответила. Попробуйте ещё раз позже.', { code: 'provider_failed' });
  }
}

export async function listMine(db: Db, userId: number): Promise<UserSubscription[]> {
  const rows = await repo.subscriptionsOf(db, userId);
  // A first payment that never came is no subscription the player needs to see.
  return rows.filter((r) => !(r.state === 'ended' && Number(r.periods) === 0)).map(toUserSubscription);
}

/**
 * DELETE /api/user/subscriptions/{id}: no more charges, what is paid for runs to its end. The
 * conditional update and the clock's claim are both on the row: whichever comes first wins, and a
 * canceled subscription is never claimed for a charge.
 */
export async function cancel(ctx: AppContext, userId: number, id: string): Promise<UserSubscription> {
  const now = Date.now();
  const row = await repo.getSubscription(ctx.db, id);
  if (!row || Number(row.user_id) !== userId) throw notFound(SUBSCRIPTION_TEXTS.notFound, { code: 'subscription_not_found' });
  await ctx.db.transaction().execute(async (trx) => {
    await repo.lockSubscription(trx, ctx.dbKind, id);
    const moved = await repo.moveSubscription(
      trx,
      id,
      LIVE,
      { state: 'canceled', live_key: null, next_charge_at: null, canceled_at: now, updated_at: now },
      { userId },
    );
    if (moved)
      await tellPlayer(
        trx,
        userId,
        {
          kind: 'subscription',
          title: `Подписка ${row.title} отменена`,
          body: row.paid_until ? `Больше списаний не будет. Оплаченный срок действует до конца.` : 'Больше списаний не будет.',
          link: '/profile',
        },
        now,
      );
  });
  return toUserSubscription((await repo.getSubscription(ctx.db, id))!);
}

/** The saved card a paid first payment left: ЮKassa's in the payment, T-Bank's in its notification. */
async function savedCard(trx: Db, provider: string, paymentId: string, raw: unknown): Promise<SavedMethod | null> {
  if (provider === 'yookassa') return yookassaSavedMethod(raw);
  for (const body of await repo.notificationBodies(trx, paymentId)) {
    try {
      const found = tbankSavedMethod(JSON.parse(body));
      if (found) return found;
    } catch {
      // a body that is not JSON names no card
    }
  }
  return tbankSavedMethod(raw);
}

const longDate = (ms: number) => new Intl.DateTimeFormat('ru-RU', { dateStyle: 'long', timeZone: 'Europe/Moscow' }).format(new Date(ms));

/**
 * A subscription's payment was credited (payments' exactly-once credit, in its transaction): the
 * period is granted once — the charge is marked paid by a conditional update, its money leaves the
 * balance it just reached as the tier's purchase, and the privilege is placed and its grant
 * queued as any purchase's. A repeat or a late notification finds the charge paid and changes
 * nothing. A payment for a tier that is gone (or below one the player holds now) stays on the balance.
 */
export async function periodPaid(
  trx: Db,
  topup: { paymentId: string; userId: number; amount: number; paidAt: number; raw?: unknown },
): Promise<void> {
  const charge = await repo.chargeOf(trx, topup.paymentId);
  if (!charge) return;
  const now = topup.paidAt;
  if (!(await repo.markChargePaid(trx, topup.paymentId, now))) return;
  const sub = (await repo.getSubscription(trx, charge.subscription_id))!;
  const tiers = await donateRepo.listTiers(trx);
  const tier = tiers.find((t) => t.id === Number(sub.tier_id));
  const months = Number(sub.months);
  let p;
  try {
    if (!tier) throw new Error('tier gone');
    p = await plan(trx, { userId: topup.userId, tier, tiers, addMs: months * MONTH_MS, now, creditUpTo: 0 });
  } catch {
    await repo.moveSubscription(trx, sub.id, LIVE, {
      state: 'ended',
      live_key: null,
      next_charge_at: null,
      ended_at: now,
      updated_at: now,
    });
    await tellPlayer(
      trx,
      topup.userId,
      {
        kind: 'subscription',
        title: `Подписка ${sub.title} закончилась`,
        body: `Привилегию уже нельзя выдать по подписке: оплата ${formatRub(topup.amount)} осталась на балансе.`,
        link: '/profile',
      },
      now,
    );
    return;
  }
  const privilegeId = await place(trx, p, { userId: topup.userId, tier: tier!, now, grantedBy: null });
  const purchaseId = await privilegesRepo.insertPurchase(trx, {
    privilege_id: privilegeId,
    user_id: topup.userId,
    paid_by: null,
    tier_id: tier!.id,
    months,
    price: topup.amount,
    credit: 0,
    total: topup.amount,
    replaced_id: p.kind === 'upgrade' ? (p.current?.id ?? null) : null,
    created_at: now,
  });
  await postLedger(trx, {
    userId: topup.userId,
    amount: -topup.amount,
    reason: 'purchase',
    authorId: null,
    ref: `privilege:${purchaseId}`,
    note: `${tier!.title} на ${months} мес. (подписка)`,
  });
  await queueGrant(trx, tier!, privilegeId, topup.userId, p.expiresAt, now);
  const card = Number(charge.period) === 1 ? await savedCard(trx, sub.provider, topup.paymentId, topup.raw) : null;
  const live = sub.state === 'pending' || sub.state === 'active' || sub.state === 'past_due';
  await repo.moveSubscription(trx, sub.id, [sub.state], {
    ...(live ? { state: 'active', next_charge_at: p.expiresAt - CHARGE_LEAD_MS } : {}),
    periods: Math.max(Number(sub.periods), Number(charge.period)),
    paid_until: p.expiresAt,
    failures: 0,
    failing_since: null,
    ...(card ? { method_id: card.id, card_last4: card.last4 } : {}),
    updated_at: now,
  });
  await tellPlayer(
    trx,
    topup.userId,
    {
      kind: 'subscription',
      title: `Подписка ${tier!.title} оплачена`,
      body: live
        ? `Привилегия действует до ${longDate(p.expiresAt)}. Следующее списание ${formatRub(Number(sub.amount))} — ${longDate(p.expiresAt - CHARGE_LEAD_MS)}.`
        : `Привилегия действует до ${longDate(p.expiresAt)}.`,
      link: '/profile',
      data: { subscription_id: sub.id },
    },
    now,
  );
}

/** «2026-12» of a moment, in Moscow time (the owner's month). */
function monthOf(ms: number): string {
  const d = new Date(ms + 3 * 3_600_000);
  return `${d.getUTCFullYear()}-${String(d.getUTCMonth() + 1).padStart(2, '0')}`;
}

/**
 * The owner's view: subscriptions that were ever paid, and for the last 12 months the money
 * charged, the subscriptions started and those that stopped (canceled or ended), churn being the
 * stopped share of those live at the month's start plus those started in it.
 */
export async function adminOverview(db: Db, now = Date.now()): Promise<AdminSubscriptionsResponse> {
  const since = now - 366 * 86_400_000;
  const items = (await repo.allSubscriptions(db, 500)).map((r) => ({
    ...toUserSubscription(r),
    user_id: Number(r.user_id),
    username: r.username,
    failures: Number(r.failures),
  }));
  // The last 12 months to this one; anything dated outside them is left out.
  const months = new Map<string, { revenue: number; started: number; churned: number }>();
  for (let i = 11; i >= 0; i--) {
    const d = new Date(now + 3 * 3_600_000);
    d.setUTCDate(1);
    d.setUTCMonth(d.getUTCMonth() - i);
    months.set(`${d.getUTCFullYear()}-${String(d.getUTCMonth() + 1).padStart(2, '0')}`, { revenue: 0, started: 0, churned: 0 });
  }
  const slot = (ms: number) => months.get(monthOf(ms)) ?? { revenue: 0, started: 0, churned: 0 };
  for (const c of await repo.paidCharges(db, since)) slot(Number(c.paid_at)).revenue += Number(c.amount);
  const lives = await repo.startsAndStops(db, 0);
  for (const s of lives) {
    slot(Number(s.created_at)).started++;
    const stop = s.canceled_at ?? s.ended_at;
    if (stop !== null) slot(Number(stop)).churned++;
  }
  const keys = [...months.keys()];
  const out: AdminSubscriptionsResponse['months'] = [];
  for (const month of keys) {
    const m = months.get(month)!;
    const start = Date.parse(`${month}-01T00:00:00+03:00`);
    const liveAtStart = lives.filter((s) => {
      const stop = s.canceled_at ?? s.ended_at;
      return Number(s.created_at) < start && (stop === null || Number(stop) >= start);
    }).length;
    const base = liveAtStart + m.started;
    out.push({
      month,
      revenue: toRoubles(m.revenue),
      started: m.started,
      churned: m.churned,
      churn: base === 0 ? 0 : Math.round((m.churned / base) * 1000) / 10,
    });
  }
  return { items, months: out, active: Number((await repo.countActive(db)).n) };
}
