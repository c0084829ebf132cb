import {
  ADMIN_PAYMENT_TEXTS,
  PAYMENT_PROVIDER_TEXT,
  PAYMENT_STATUS_TEXT,
  PAYMENT_TEXTS,
  type PaymentProvider,
  type PaymentStatus,
} from '@kubik/contract';
import { refundBonusShare } from '@kubik/contract/payment-connections';
import type { AppContext } from '../../context.ts';
import type { Db } from '../../db/index.ts';
import { conflict, HttpError } from '../../lib/errors.ts';
import { toRoubles } from '../../lib/money.ts';
import {
  ProviderError,
  type PaymentAdapter,
  type ProviderPaymentState,
  type ReceiptLine,
  type RefundRequest,
  type RefundResult,
} from '../../lib/payments/index.ts';
import { recordAudit } from '../audit/audit.service.ts';
import { topupRefunded } from '../users/users.ports.ts';
import { InsufficientFunds, postLedger } from '../ledger/ledger.service.ts';
import {
  findPayment,
  formatRub,
  movePayment,
  PAYMENT_SERVER_TEXTS,
  payerEmail,
  recordEvent,
  refundsToResume,
  type PaymentRow,
  type PaymentSet,
  type PaymentWhere,
} from './payments.repo.ts';
import { receiptFiscal, refundableOf, RECEIPT_TEXTS } from './receipts.service.ts';

/*
 * The refund of a payment, as a state machine. The payment's status moves only along the
 * transitions below, each one conditional update (`where status = from`, plus the attempt number
 * or the lease where they matter), so of two callers racing (two owners pressing «Вернуть», the
 * provider's notification and reconciliation) one moves it and the other changes nothing.
 *
 *   succeeded ──start──▶ refunding ──paid──▶ refunded
 *       ▲                 │  ↻ take     a caller takes the refund's lease to ask the provider
 *       │                 │  ↻ wait     the provider took it and decides later
 *       │                 │  ↻ unknown  no answer: asked again later, never put back meanwhile
 *       └────putBack──────┘  the provider refused and says it did not pay out
 *
 * Money: `start` debits amount + bonus from the player's balance in the same transaction
 * (ledger ref refundRef(id, n), n = the attempt), `putBack` credits it back (refundBackRef(id, n)).
 * To add a state (a partial refund, say), add it to REFUND_TRANSITIONS with the moves into and
 * out of it; every write goes through moveRefund().
 */
export const REFUND_TRANSITIONS = {
  /** «Вернуть» pressed: the balance is debited, attempt n begins. */
  start: { from: 'succeeded', to: 'refunding' },
  /** Whoever holds the lease asks the provider (the owner again, or reconciliation). */
  take: { from: 'refunding', to: 'refunding' },
  /** The provider took the refund and decides later: its notification or reconciliation finishes it. */
  wait: { from: 'refunding', to: 'refunding' },
  /** No answer: the lease is let go, the refund stays debited and is asked about again. */
  unknown: { from: 'refunding', to: 'refunding' },
  /** The provider paid out the last of the payment: its answer, its notification, or reconciliation's re-read. */
  paid: { from: 'refunding', to: 'refunded' },
  /** The provider paid out a part: the payment is paid again, with less left to refund. */
  paidPart: { from: 'refunding', to: 'succeeded' },
  /** The provider refused and says the payment is not refunded: the money goes back on the balance. */
  putBack: { from: 'refunding', to: 'succeeded' },
} as const satisfies Record<string, { from: PaymentStatus; to: PaymentStatus }>;

export type RefundTransition = keyof typeof REFUND_TRANSITIONS;

/**
 * Moves the payment along one transition, with `set`, only if it is in the transition's `from`
 * status (and matches `where`). True when it moved; false when another caller moved it first.
 */
export async function moveRefund(
  db: Db,
  id: string,
  transition: RefundTransition,
  set: PaymentSet,
  where?: PaymentWhere,
): Promise<boolean> {
  const { from, to } = REFUND_TRANSITIONS[transition];
  return movePayment(db, id, from, to, set, where);
}

/** How long one caller may talk to the provider about a refund before another may take over. */
export const REFUND_LEASE_MS = 60_000;

/** Ledger refs of refund attempt n: the debit, and the money put back when the provider refused. */
export const refundRef = (paymentId: string, attempt: number) => `payment:${paymentId}:refund:${attempt}`;
export const refundBackRef = (paymentId: string, attempt: number) => `${refundRef(paymentId, attempt)}:back`;

/** Kopecks still to go back to the card. */
export const refundLeft = (row: PaymentRow) => Number(row.amount) - Number(row.refunded_amount);

/** The attempt in flight: kopecks to the card and the bonus share debited with them (rows older than partial refunds: all that is left). */
function attemptOf(row: PaymentRow): { now: number; bonus: number } {
  return {
    now: row.refund_now === null ? refundLeft(row) : Number(row.refund_now),
    bonus: row.refund_bonus_now === null ? Number(row.bonus) - Number(row.bonus_refunded) : Number(row.refund_bonus_now),
  };
}

/** Bonus share (kopecks) of a refund of `refund` kopecks of this payment. */
export const bonusShare = (row: PaymentRow, refund: number) =>
  refundBonusShare(Number(row.amount), Number(row.bonus), Number(row.refunded_amount), Number(row.bonus_refunded), refund);

/** The most that can go back to the card now: what is left, as far as `balance` covers it with its bonus share. */
export function refundMax(row: PaymentRow, balance: number): number {
  const left = refundLeft(row);
  if (left <= 0) return 0;
  if (left + bonusShare(row, left) <= balance) return left;
  // The share grows with the part: find the largest part that fits.
  let lo = 0;
  let hi = left;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (mid + bonusShare(row, mid) <= balance) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

type Adapters = Partial<Record<PaymentProvider, PaymentAdapter>>;

export interface RefundOutcome {
  /** 200: refunded; 202: the provider decides later. */
  status: 200 | 202;
  message: string;
}

/** Why «Вернуть» cannot be pressed now, or null. */
export function refundBlock(adapters: Adapters, row: PaymentRow, balance: number, now: number): string | null {
  const adapter = adapters[row.provider as PaymentProvider];
  if (!adapter) return ADMIN_PAYMENT_TEXTS.refundProviderOff;
  if (!adapter.canRefund) return PAYMENT_SERVER_TEXTS.refundNotSupported;
  if (row.status === 'refunded') return ADMIN_PAYMENT_TEXTS.alreadyRefunded;
  if (row.status === 'refunding')
    return row.refund_lease_until !== null && Number(row.refund_lease_until) > now ? ADMIN_PAYMENT_TEXTS.refundInProgress : null;
  if (row.status !== 'succeeded' || !row.provider_payment_id) return PAYMENT_TEXTS.refundNotSucceeded;
  if (refundLeft(row) <= 0) return ADMIN_PAYMENT_TEXTS.alreadyRefunded;
  if (refundMax(row, balance) < 1) return PAYMENT_TEXTS.refundNoFunds;
  return null;
}

/**
 * Refund of a succeeded payment, owner's button. The bonus credited with the payment goes back
 * too: it was given for this money, so one `topup_refund` row takes amount + bonus, and the
 * player's balance must cover both.
 *
 * 1. One transaction (start): succeeded → refunding (conditional: of parallel requests one wins),
 *    the attempt number n counted up, the balance debited by a conditional update (never below
 *    zero, else nothing happened: 409), the audit entry. The winner holds the refund's lease.
 * 2. The provider is asked with attempt n's key (YooKassa's Idempotence-Key; T-Bank: GetState
 *    first, then Cancel).
 * 3. Succeeded → paid. Pending (the provider decides later) → wait; reconciliation and the
 *    provider's notification finish it. No answer → unknown: stays refunding, debited, asked again
 *    later (never returned to the balance while the provider may still pay out). Refused → the
 *    provider is asked once more what the payment's state is; only if it is not refunded the
 *    money goes back to the balance (`…:back` row) and the payment is succeeded again (putBack).
 */
export async function refundPayment(
  ctx: AppContext,
  adapters: Adapters,
  actorId: number,
  id: string,
  amountKopecks?: number,
): Promise<RefundOutcome> {
  const row = await findPayment(ctx.db, id);
  const adapter = adapters[row.provider as PaymentProvider];
  if (!adapter) throw conflict(ADMIN_PAYMENT_TEXTS.refundProviderOff, { code: 'provider_off' });
  if (!adapter.canRefund) throw conflict(PAYMENT_SERVER_TEXTS.refundNotSupported, { code: 'refund_not_supported' });
  if (row.status === 'refunding') return resumeRefund(ctx, adapters, row, actorId);
  if (row.status === 'refunded' || (row.status === 'succeeded' && refundLeft(row) <= 0))
    throw conflict(ADMIN_PAYMENT_TEXTS.alreadyRefunded, { code: 'already_refunded' });
  if (row.status !== 'succeeded' || !row.provider_payment_id) throw conflict(PAYMENT_TEXTS.refundNotSucceeded, { code: 'not_refundable' });
  // Money of a top-up with receipts that was spent on goods had its completion receipt: it is not returned.
  const left = Math.min(refundLeft(row), await refundableOf(ctx.db, row));
  if (left <= 0) throw conflict(RECEIPT_TEXTS.allSpent, { code: 'refund_too_large', field: 'amount' });
  const part = amountKopecks ?? left;
  if (part > left) throw conflict(PAYMENT_SERVER_TEXTS.refundTooLarge(formatRub(left)), { code: 'refund_too_large', field: 'amount' });
  const share = bonusShare(row, part);
  const total = part + share;
  const attempt = Number(row.refund_attempts) + 1;
  const now = Date.now();
  await ctx.db.transaction().execute(async (trx) => {
    // Conditional on the attempt number and on what was refunded so far: of two refunds (or a
    // refund and a purchase's debit below) racing, each sees the state the other left.
    const started = await moveRefund(
      trx,
      row.id,
      'start',
      {
        refund_attempts: attempt,
        refund_requested_by: actorId,
        refund_lease_until: now + REFUND_LEASE_MS,
        refund_error: null,
        provider_refund_id: null,
        refund_now: part,
        refund_bonus_now: share,
        updated_at: now,
      },
      (eb) => eb.and([eb('refund_attempts', '=', Number(row.refund_attempts)), eb('refunded_amount', '=', Number(row.refunded_amount))]),
    );
    if (!started) throw conflict(ADMIN_PAYMENT_TEXTS.refundInProgress, { code: 'refund_in_progress' });
    let balance: number;
    try {
      balance = await postLedger(trx, {
        userId: row.user_id,
        amount: -total,
        reason: 'topup_refund',
        authorId: actorId,
        ref: refundRef(row.id, attempt),
        note: `Возврат на карту ${formatRub(part)} из пополнения на ${formatRub(Number(row.amount))}${share > 0 ? ` и бонус ${formatRub(share)}` : ''}`,
      });
    } catch (err) {
      if (err instanceof InsufficientFunds) throw conflict(PAYMENT_TEXTS.refundNoFunds, { code: 'insufficient_funds' });
      throw err;
    }
    await recordAudit(trx, {
      actorId,
      action: 'payment.refund',
      entity: 'payment',
      entityId: row.id,
      before: { status: PAYMENT_STATUS_TEXT.succeeded, balance: toRoubles(balance + total) },
      after: {
        status: PAYMENT_STATUS_TEXT.refunding,
        balance: toRoubles(balance),
        amount: toRoubles(part),
        bonus: toRoubles(share),
        provider: PAYMENT_PROVIDER_TEXT[row.provider as PaymentProvider] ?? row.provider,
        attempt,
      },
    });
  });
  return askProvider(
    ctx,
    adapters,
    { ...row, status: 'refunding', refund_attempts: attempt, provider_refund_id: null, refund_now: part, refund_bonus_now: share },
    actorId,
  );
}

/** A refund left «refunding» (no answer, or pending at the provider): asked again by whoever takes its lease. */
async function resumeRefund(ctx: AppContext, adapters: Adapters, row: PaymentRow, actorId: number | null): Promise<RefundOutcome> {
  const now = Date.now();
  const taken = await moveRefund(ctx.db, row.id, 'take', { refund_lease_until: now + REFUND_LEASE_MS }, (eb) =>
    eb.and([
      eb('refund_attempts', '=', Number(row.refund_attempts)),
      eb.or([eb('refund_lease_until', 'is', null), eb('refund_lease_until', '<=', now)]),
    ]),
  );
  if (!taken) throw conflict(ADMIN_PAYMENT_TEXTS.refundInProgress, { code: 'refund_in_progress' });
  return askProvider(ctx, adapters, row, actorId);
}

async function askProvider(ctx: AppContext, adapters: Adapters, row: PaymentRow, actorId: number | null): Promise<RefundOutcome> {
  const adapter = adapters[row.provider as PaymentProvider]!;
  const attempt = Number(row.refund_attempts);
  const part = attemptOf(row).now;
  const whole = Number(row.refunded_amount) === 0 && part === Number(row.amount);
  let partReceipt: RefundRequest['partReceipt'] = null;
  if (!whole) {
    const user = await payerEmail(ctx.db, row.user_id);
    const receipt = await receiptFiscal(ctx);
    // A payment for goods is refunded with its goods' line (full_payment), not a top-up's advance.
    const kept = row.purpose === 'goods' && row.receipt ? (JSON.parse(row.receipt) as { lines: ReceiptLine[] }).lines[0] : undefined;
    partReceipt = { email: user?.email ?? '', vatCode: receipt.vatCode, fiscal: receipt.fiscal, ...(kept ? { line: kept } : {}) };
  }
  let result: RefundResult;
  try {
    result = await adapter.refund({
      partReceipt,
      providerPaymentId: row.provider_payment_id!,
      amountKopecks: attemptOf(row).now,
      key: `${row.id}:refund:${attempt}`,
      knownRefundId: row.provider_refund_id,
    });
  } catch (err) {
    const message = (err as Error).message;
    await recordEvent(ctx.db, {
      paymentId: row.id,
      provider: row.provider,
      kind: 'error',
      outcome: `возврат: ${message}`,
      body: err instanceof ProviderError ? (err.raw ?? undefined) : undefined,
    });
    if (err instanceof ProviderError && err.definitive) {
      // Refused. Before the money goes back to the balance, the provider's own word on the payment:
      // a refund done after all (an earlier call, the owner's cabinet) must not be paid twice.
      let refundedThere: boolean;
      try {
        refundedThere = (await adapter.fetch(row.provider_payment_id!)).status === 'refunded';
      } catch {
        await askLater(ctx.db, row, message);
        throw new HttpError(502, ADMIN_PAYMENT_TEXTS.refundUnknown, { code: 'refund_unknown' });
      }
      if (refundedThere) {
        await paid(ctx.db, row, null);
        return { status: 200, message: PAYMENT_TEXTS.refunded };
      }
      await putBack(ctx.db, row, actorId, message);
      throw new HttpError(502, ADMIN_PAYMENT_TEXTS.refundRefused(message), { code: 'refund_refused' });
    }
    await askLater(ctx.db, row, message);
    throw new HttpError(502, ADMIN_PAYMENT_TEXTS.refundUnknown, { code: 'refund_unknown' });
  }
  await recordEvent(ctx.db, {
    paymentId: row.id,
    provider: row.provider,
    kind: 'refund',
    outcome:
      result.status === 'succeeded'
        ? `возврат выполнен (попытка ${attempt})`
        : `возврат принят, ждёт решения провайдера (попытка ${attempt})`,
    body: result.raw,
  });
  if (result.status === 'succeeded') {
    await paid(ctx.db, row, result.providerRefundId);
    return { status: 200, message: PAYMENT_TEXTS.refunded };
  }
  await moveRefund(ctx.db, row.id, 'wait', {
    provider_refund_id: result.providerRefundId ?? row.provider_refund_id,
    refund_lease_until: null,
    updated_at: Date.now(),
  });
  return { status: 202, message: PAYMENT_TEXTS.refundStarted };
}

/**
 * The attempt is done at the provider: refunding → refunded (nothing left) or succeeded (a part
 * went back), what went back added up, in one transaction with the refund hooks (the refunded
 * amount) — a notification finishing it at the same moment changes nothing the second time.
 */
async function paid(db: Db, row: PaymentRow, providerRefundId: string | null, extra: PaymentSet = {}): Promise<boolean> {
  const now = Date.now();
  const { now: part, bonus } = attemptOf(row);
  const refunded = Number(row.refunded_amount) + part;
  const whole = refunded >= Number(row.amount);
  return db.transaction().execute(async (trx) => {
    const moved = await moveRefund(
      trx,
      row.id,
      whole ? 'paid' : 'paidPart',
      {
        refunded_at: now,
        refund_lease_until: null,
        refund_error: null,
        provider_refund_id: providerRefundId ?? row.provider_refund_id,
        refunded_amount: refunded,
        bonus_refunded: Number(row.bonus_refunded) + bonus,
        refund_now: null,
        refund_bonus_now: null,
        updated_at: now,
        ...extra,
      },
      (eb) => eb('refund_attempts', '=', Number(row.refund_attempts)),
    );
    if (moved) await topupRefunded.run(trx, { userId: row.user_id, paymentId: row.id, amount: part, bonus });
    return moved;
  });
}

/**
 * The provider says the payment is refunded (its notification, or a re-read): a refund started on
 * the site (balance already debited) is done. The outcome, for the payment's events.
 */
export async function refundConfirmed(db: Db, row: PaymentRow, state: ProviderPaymentState): Promise<string> {
  if (row.status === 'refunding') {
    const moved = await paid(db, row, null, { provider_status: state.providerStatus });
    return moved ? 'возврат подтверждён провайдером' : 'без изменений';
  }
  if (row.status === 'refunded') return 'без изменений';
  return 'провайдер пишет, что платёж возвращён, но на сайте возврат не начат: баланс не изменён';
}

/** The outcome is unknown: stays refunding (debited) and may be asked again at once. */
async function askLater(db: Db, row: PaymentRow, message: string): Promise<void> {
  await moveRefund(db, row.id, 'unknown', { refund_lease_until: null, refund_error: message.slice(0, 300), updated_at: Date.now() });
}

/** The provider refused attempt n: refunding → succeeded and the money back on the balance, in one transaction. */
async function putBack(db: Db, row: PaymentRow, actorId: number | null, message: string): Promise<void> {
  const attempt = Number(row.refund_attempts);
  const { now: part, bonus } = attemptOf(row);
  const total = part + bonus;
  await db.transaction().execute(async (trx) => {
    const moved = await moveRefund(
      trx,
      row.id,
      'putBack',
      { refund_lease_until: null, refund_error: message.slice(0, 300), refund_now: null, refund_bonus_now: null, updated_at: Date.now() },
      (eb) => eb('refund_attempts', '=', attempt),
    );
    if (!moved) return;
    const balance = await postLedger(trx, {
      userId: row.user_id,
      amount: total,
      reason: 'topup_refund',
      authorId: actorId,
      ref: refundBackRef(row.id, attempt),
      note: `Возврат пополнения не выполнен: ${message}`.slice(0, 500),
    });
    await recordAudit(trx, {
      actorId,
      action: 'payment.refund_failed',
      entity: 'payment',
      entityId: row.id,
      before: { status: PAYMENT_STATUS_TEXT.refunding, balance: toRoubles(balance - total) },
      after: { status: PAYMENT_STATUS_TEXT.succeeded, balance: toRoubles(balance), reason: message.slice(0, 300), attempt },
    });
  });
}

/** Reconciliation: refunds left «refunding» whose lease ran out are asked about again. */
export async function resumeRefunds(ctx: AppContext, adapters: Adapters, signal?: AbortSignal): Promise<number> {
  const now = Date.now();
  const rows = await refundsToResume(ctx.db, now, 50);
  let done = 0;
  for (const row of rows) {
    if (signal?.aborted) break;
    if (!adapters[row.provider as PaymentProvider]) continue;
    try {
      await resumeRefund(ctx, adapters, row, null);
      done += 1;
    } catch {
      // Recorded as a payment event; the next pass tries again.
    }
  }
  return done;
}
