import { randomUUID } from 'node:crypto';
import type { SubscriptionProvider } from '@kubik/contract';
import type { FastifyBaseLogger } from 'fastify';
import type { AppContext } from '../../context.ts';
import type { ScheduledJobSpec } from '../../lib/jobs/index.ts';
import { ProviderError, type ProviderPaymentState } from '../../lib/payments/index.ts';
import { kickDeliveries } from '../deliveries/deliveries.queue.ts';
import { enqueueMail, type OutboxLetter } from '../mail/mail.outbox.ts';
import { notify as tellPlayer } from '../notices/notices.service.ts';
import { formatRub, recordEvent } from '../payments/payments.repo.ts';
import * as paymentsRepo from '../payments/payments.repo.ts';
import { paymentsService } from '../payments/payments.service.ts';
import { goodsLine, receiptFiscal } from '../payments/receipts.service.ts';
import { siteName } from '../site/site.settings.ts';
import * as repo from './subscriptions.repo.ts';
import type { SubscriptionRow } from './subscriptions.repo.ts';
import { recurringOf } from './subscriptions.service.ts';

const DAY = 86_400_000;
/** The letter and notice before a charge go this long before it. */
export const REMIND_BEFORE_MS = 3 * DAY;
/** After a failed charge the next tries come this long after the first failure… */
export const RETRY_AFTER_MS = [1 * DAY, 3 * DAY, 5 * DAY];
/** …and this long after it the subscription ends (the privilege runs to the end of what was paid). */
export const GRACE_MS = 7 * DAY;
/** A charge whose outcome is unknown (no answer from the provider) is asked about again this soon. */
export const UNKNOWN_RETRY_MS = 10 * 60_000;
const BATCH = 100;

export interface ClockOutcome {
  reminded: number;
  charged: number;
  failed: number;
  ended: number;
}

const esc = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
const when = (ms: number) =>
  new Intl.DateTimeFormat('ru-RU', { dateStyle: 'long', timeStyle: 'short', timeZone: 'Europe/Moscow' }).format(new Date(ms));

function letter(to: string, subject: string, lines: string[], link: string, action: string): OutboxLetter {
  return {
    to,
    subject,
    link,
    text: `${lines.join('\n\n')}\n\n${action}: ${link}\n`,
    html: `<!doctype html><html lang="ru"><head><meta charset="utf-8"><title>${esc(subject)}</title></head><body style="font-family:Arial,sans-serif">${lines.map((l) => `<p>${esc(l)}</p>`).join('')}<p><a href="${esc(link)}">${esc(action)}</a></p></body></html>`,
  };
}

/** The letter before a charge: when, how much, from which card, and how to cancel. */
export function reminderLetter(site: string, publicUrl: string, to: string, username: string, s: SubscriptionRow): OutboxLetter {
  const link = `${publicUrl}/profile`;
  const card = s.card_last4 ? ` с карты •••• ${s.card_last4}` : '';
  return letter(
    to,
    `Скоро списание по подписке ${s.title} — ${site}`,
    [
      `Здравствуйте, ${username}!`,
      `${when(Number(s.next_charge_at))} (МСК) мы спишем ${formatRub(Number(s.amount))}${card} за подписку ${s.title} на ${Number(s.months)} мес.`,
      'Чтобы отказаться, откройте личный кабинет и нажмите «Отменить подписку» до этого времени: оплаченный срок останется у вас.',
    ],
    link,
    'Управлять подпиской',
  );
}

/** Asks the provider to charge the saved card; the outcome in our terms (never throws for a refusal). */
async function chargeCard(
  ctx: AppContext,
  s: SubscriptionRow,
  paymentId: string,
  email: string,
  attempt: { known: string | null; mayCharge: boolean },
): Promise<{ state: ProviderPaymentState | null; failure: string | null; unknown: boolean }> {
  const adapter = await recurringOf(ctx, s.provider as SubscriptionProvider);
  if (!adapter) return { state: null, failure: 'способ оплаты отключён на сайте', unknown: false };
  if (!s.method_id) return { state: null, failure: 'карта не сохранена при первой оплате', unknown: false };
  const fiscal = await receiptFiscal(ctx);
  const item = `Подписка ${s.title} на ${Number(s.months)} мес.`;
  const line = await goodsLine(ctx.db, { kind: 'tier', id: Number(s.tier_id) }, item, Number(s.amount), fiscal.vatCode);
  // What goes with the charge, kept on its payment (a partial refund's receipt repeats its line).
  if ((await paymentsService(ctx).registry.effective())[s.provider as SubscriptionProvider]?.receipts)
    await paymentsRepo.keepReceipt(ctx.db, paymentId, JSON.stringify({ email, lines: [line] }));
  try {
    const created = (providerPaymentId: string) =>
      paymentsRepo.recordCreated(ctx.db, paymentId, {
        provider_payment_id: providerPaymentId,
        confirmation_url: null,
        provider_status: null,
        updated_at: Date.now(),
      });
    const out = await adapter.charge({
      id: paymentId,
      known: attempt.known,
      mayCharge: attempt.mayCharge,
      created,
      amountKopecks: Number(s.amount),
      description: `Подписка ${s.title}, продление (${await siteName(ctx)})`,
      notificationUrl: paymentsService(ctx).registry.notificationUrl(s.provider as SubscriptionProvider),
      email,
      vatCode: fiscal.vatCode,
      methodId: s.method_id,
      item,
      line,
      taxSystemCode: fiscal.fiscal.taxSystemCode,
    });
    if (out.providerPaymentId)
      await paymentsRepo.recordCreated(ctx.db, paymentId, {
        provider_payment_id: out.providerPaymentId,
        confirmation_url: null,
        provider_status: out.state?.providerStatus ?? null,
        updated_at: Date.now(),
      });
    await recordEvent(ctx.db, {
      paymentId,
      provider: s.provider,
      kind: 'create',
      outcome: out.failure ? `списание по подписке отклонено: ${out.failure}` : `списание по подписке: ${out.state?.providerStatus ?? '—'}`,
      body: out.state?.raw,
    });
    return { state: out.state, failure: out.failure, unknown: false };
  } catch (err) {
    await recordEvent(ctx.db, {
      paymentId,
      provider: s.provider,
      kind: 'error',
      outcome: `списание по подписке: ${(err as Error).message}`,
      body: err instanceof ProviderError ? (err.raw ?? undefined) : undefined,
    });
    // Not definitive: the same attempt (the same key) is asked again next time, never a second one.
    if (err instanceof ProviderError && !err.definitive) return { state: null, failure: null, unknown: true };
    return { state: null, failure: (err as Error).message, unknown: false };
  }
}

/**
 * Claims the due period of one subscription and charges it. The claim is a transaction holding
 * the subscription's row: it re-reads it (a canceled one is never charged), records this
 * period's attempt (one per period and attempt: the provider's idempotence key is its payment
 * id) and moves next_charge_at on, so another pass or instance does not take it too. A charge
 * whose outcome was unknown is asked again with the same payment id.
 */
async function chargeOne(ctx: AppContext, due: SubscriptionRow, now: number, out: ClockOutcome): Promise<void> {
  const { db } = ctx;
  const claimed = await db.transaction().execute(async (trx) => {
    const s = await repo.lockSubscription(trx, ctx.dbKind, due.id);
    if (!s || (s.state !== 'active' && s.state !== 'past_due') || s.next_charge_at === null || Number(s.next_charge_at) > now) return null;
    const period = Number(s.periods) + 1;
    const last = await repo.lastAttempt(trx, s.id, period);
    let paymentId: string;
    if (last && last.status === 'pending') paymentId = last.payment_id;
    else {
      paymentId = randomUUID();
      await paymentsRepo.insertPayment(trx, {
        id: paymentId,
        user_id: s.user_id,
        provider: s.provider,
        amount: Number(s.amount),
        status: 'pending',
        promo_id: null,
        created_at: now,
        updated_at: now,
        payer_ip: null,
        payer_device: null,
        // The period's price, paid directly: its receipt went with the payment, and it is no top-up.
        purpose: 'goods',
        receipt: null,
      });
      if (
        !(await repo.insertCharge(trx, {
          payment_id: paymentId,
          subscription_id: s.id,
          period,
          attempt: (last ? Number(last.attempt) : 0) + 1,
          amount: Number(s.amount),
          status: 'pending',
          failure: null,
          created_at: now,
          paid_at: null,
        }))
      )
        return null;
    }
    // The lease: until the outcome moves it, the next look is a day away.
    if (
      !(await repo.moveSubscription(
        trx,
        s.id,
        ['active', 'past_due'],
        { next_charge_at: now + RETRY_AFTER_MS[0]!, updated_at: now },
        { dueBy: now },
      ))
    )
      return null;
    return { s, paymentId };
  });
  if (!claimed) return;
  const { s, paymentId } = claimed;
  const { email, username } = await repo.emailOf(db, s.user_id);
  // A cancel that came after the claim and before the bank was asked still stops this charge; an
  // attempt that already reached the provider is only looked at (its charge may have gone through).
  const now2 = await repo.getSubscription(db, s.id);
  const mayCharge = now2?.state === 'active' || now2?.state === 'past_due';
  const known = (await paymentsRepo.getPayment(db, paymentId))?.provider_payment_id ?? null;
  if (!mayCharge && known === null) {
    await repo.markChargeFailed(db, paymentId, 'подписка отменена');
    await paymentsRepo.cancelPending(db, paymentId, Date.now());
    return;
  }
  const result = await chargeCard(ctx, s, paymentId, email, { known, mayCharge });
  if (result.unknown) {
    // The provider did not answer: the same attempt is asked again soon, well inside the day for
    // which ЮKassa keeps an idempotence key's answer.
    await repo.moveSubscription(db, s.id, ['active', 'past_due'], { next_charge_at: now + UNKNOWN_RETRY_MS, updated_at: now });
    return;
  }
  const payment = (await paymentsRepo.getPayment(db, paymentId))!;
  if (result.state && (result.state.status === 'succeeded' || result.state.status === 'canceled')) {
    await paymentsService(ctx).apply(payment, { ...result.state, orderId: paymentId });
  }
  if (!result.failure) {
    out.charged++;
    return;
  }
  out.failed++;
  await failed(ctx, s, paymentId, result.failure, now, email, username);
}

/** A refused charge: past_due, the next try on the schedule (none past the grace period); the player is told. */
async function failed(
  ctx: AppContext,
  s: SubscriptionRow,
  paymentId: string,
  failure: string,
  now: number,
  email: string,
  username: string,
): Promise<void> {
  const since = s.failing_since === null ? now : Number(s.failing_since);
  const failures = Number(s.failures) + 1;
  const next = RETRY_AFTER_MS.map((d) => since + d).find((t) => t > now);
  const endsAt = since + GRACE_MS;
  const site = await siteName(ctx);
  await ctx.db.transaction().execute(async (trx) => {
    await repo.markChargeFailed(trx, paymentId, failure);
    const moved = await repo.moveSubscription(trx, s.id, ['active', 'past_due'], {
      state: 'past_due',
      failures,
      failing_since: since,
      // No try after the grace period: it ends then (graceOver).
      next_charge_at: next !== undefined && next < endsAt ? next : null,
      updated_at: now,
    });
    if (!moved) return;
    const body = `Не удалось списать ${formatRub(Number(s.amount))}: ${failure}. ${
      next !== undefined && next < endsAt ? `Попробуем снова ${when(next)} (МСК).` : ''
    } Если оплата не пройдёт до ${when(endsAt)} (МСК), подписка закончится; привилегия действует до конца оплаченного срока.`;
    await tellPlayer(
      trx,
      s.user_id,
      { kind: 'subscription', title: `Не удалось продлить подписку ${s.title}`, body, link: '/profile' },
      now,
    );
    await enqueueMail(
      trx,
      letter(
        email,
        `Не удалось продлить подписку ${s.title} — ${site}`,
        [`Здравствуйте, ${username}!`, body, 'Отменить подписку можно в личном кабинете.'],
        `${ctx.config.publicUrl}/profile`,
        'Личный кабинет',
      ),
      now,
    );
  });
}

/**
 * One pass of the subscription clock at `now` (the caller's clock, so tests move time): letters
 * before charges, charges due, and the end of those whose grace period is over.
 */
export async function subscriptionPass(ctx: AppContext, now: number, log?: FastifyBaseLogger): Promise<ClockOutcome> {
  const out: ClockOutcome = { reminded: 0, charged: 0, failed: 0, ended: 0 };
  const { db } = ctx;
  const soon = await repo.subscriptionsToRemind(db, now, REMIND_BEFORE_MS, BATCH);
  const site = soon.length > 0 ? await siteName(ctx) : '';
  for (const r of soon) {
    await db.transaction().execute(async (trx) => {
      if (!(await repo.markReminded(trx, r.id, Number(r.periods) + 1))) return;
      await enqueueMail(trx, reminderLetter(site, ctx.config.publicUrl, r.email, r.username, r), now);
      await tellPlayer(
        trx,
        r.user_id,
        {
          kind: 'subscription',
          title: `Скоро списание по подписке ${r.title}`,
          body: `${when(Number(r.next_charge_at))} (МСК) спишем ${formatRub(Number(r.amount))}${r.card_last4 ? ` с карты •••• ${r.card_last4}` : ''}. Отменить подписку можно в личном кабинете.`,
          link: '/profile',
          data: { subscription_id: r.id },
        },
        now,
      );
      out.reminded++;
    });
  }
  for (const s of await repo.dueSubscriptions(db, now, BATCH)) {
    try {
      await chargeOne(ctx, s, now, out);
    } catch (err) {
      log?.error({ err, subscription: s.id }, 'subscription charge failed');
    }
  }
  for (const s of await repo.graceOver(db, now - GRACE_MS, BATCH)) {
    await db.transaction().execute(async (trx) => {
      if (
        !(await repo.moveSubscription(trx, s.id, ['past_due'], {
          state: 'ended',
          live_key: null,
          next_charge_at: null,
          ended_at: now,
          updated_at: now,
        }))
      )
        return;
      await tellPlayer(
        trx,
        s.user_id,
        {
          kind: 'subscription',
          title: `Подписка ${s.title} закончилась`,
          body: 'Оплата не прошла. Привилегия действует до конца оплаченного срока; подписаться снова можно в разделе «Донат».',
          link: '/donate',
        },
        now,
      );
      out.ended++;
    });
  }
  if (out.charged > 0) kickDeliveries(ctx);
  return out;
}

export const CLOCK_JOB = 'subscriptions.clock';

/** The clock on the jobs runner; `clock` is injectable (tests move time). */
export function clockJob(ctx: AppContext, opts: { everyMs: number; clock?: () => number; log?: FastifyBaseLogger }): ScheduledJobSpec {
  return { name: CLOCK_JOB, everyMs: opts.everyMs, run: () => subscriptionPass(ctx, (opts.clock ?? Date.now)(), opts.log) };
}
