import {
  RECEIPT_KIND_TEXT,
  RECEIPT_STATE_TEXT,
  type AdminReceipt,
  type AdminReceiptsQuery,
  type AdminReceiptsPage,
  type PaymentProvider,
} from '@kubik/contract';
import type { AppContext } from '../../context.ts';
import type { Db } from '../../db/index.ts';
import { backoffMs } from '../../base/backoff.ts';
import { conflict, notFound } from '../../lib/errors.ts';
import type { ScheduledJobSpec } from '../../lib/jobs/index.ts';
import { toRoubles } from '../../lib/money.ts';
import { ProviderError, type ReceiptFiscal, type ReceiptLine, type ReceiptState } from '../../lib/payments/index.ts';
import { recordAudit } from '../audit/audit.service.ts';
import { DEFAULT_PAYMENT_SUBJECT, FiscalSettingsDoc } from '../site/fiscal.settings.ts';
import { fiscalItemRow } from '../site/legal.repo.ts';
import { balanceReturned, balanceSpent, topupRefunded } from '../users/users.ports.ts';
import type { Adapters } from './payments.providers.ts';
import { recordEvent } from './payments.repo.ts';
import { PaymentSettings } from './payments.settings.ts';
import * as repo from './receipts.repo.ts';

/** A receipt the provider does not take after this many tries is canceled; the owner may send it again. */
export const RECEIPT_MAX_ATTEMPTS = 8;
const RETRY = { baseMs: 30_000, capMs: 3_600_000, jitter: 0.2 };
const BATCH = 100;

/** What the receipts of a top-up carry now: the VAT code, the tax system and whether the seller is a самозанятый. */
export async function receiptFiscal(ctx: Pick<AppContext, 'settings'>): Promise<{ vatCode: number; fiscal: ReceiptFiscal }> {
  const stored = await ctx.settings.stored(FiscalSettingsDoc);
  const f = await ctx.settings.get(FiscalSettingsDoc);
  // Until the owner fills in the seller, the payment settings' VAT rate applies, as it always did.
  const vatCode = stored.vat_code !== undefined ? f.vat_code : (await ctx.settings.get(PaymentSettings)).vat_code;
  return {
    vatCode,
    fiscal: {
      taxSystemCode: stored.tax_system_code !== undefined ? f.tax_system_code : null,
      selfEmployed: stored.legal_form !== undefined && f.legal_form === 'self_employed',
    },
  };
}

/** The advance receipt that goes with a top-up, as payments.receipt keeps it (JSON {email, lines}). */
export function advanceOf(p: { amount: number; email: string; vatCode: number; selfEmployed: boolean }): string {
  const line: ReceiptLine = {
    description: p.selfEmployed ? 'Пополнение баланса' : 'Пополнение баланса (аванс)',
    amountKopecks: p.amount,
    vatCode: p.vatCode,
    paymentMode: 'full_prepayment',
    paymentSubject: 'payment',
  };
  return JSON.stringify({ email: p.email, lines: [line] });
}

/**
 * A top-up is credited (in its transaction): the advance receipt that went with it gets its row,
 * so no money reaches the balance without one. A top-up created before the receipt was kept on
 * the payment has its row already, «sent» until now.
 */
export async function recordAdvance(
  trx: Db,
  p: { id: string; user_id: number; provider: string; amount: number; receipt: string | null },
): Promise<void> {
  if (p.receipt === null) {
    for (const r of await repo.receiptOfKind(trx, p.id, 'advance'))
      await repo.moveReceipt(trx, r.id, 'sent', { state: 'succeeded', reason: null });
    return;
  }
  const advance = JSON.parse(p.receipt) as { email: string; lines: ReceiptLine[] };
  const now = Date.now();
  await repo.insertReceipt(trx, {
    payment_id: p.id,
    user_id: p.user_id,
    provider: p.provider,
    kind: 'advance',
    state: 'succeeded',
    reason: null,
    amount: Number(p.amount),
    lines: JSON.stringify(advance.lines),
    email: advance.email,
    ref: `payment:${p.id}`,
    idempotence_key: p.id,
    provider_receipt_id: null,
    parent_id: null,
    next_at: null,
    created_at: now,
    updated_at: now,
  });
}

/** The «полный расчёт» line of goods paid for directly (a guest's order, a subscription's period): the item's or tier's VAT rate and payment subject, else the seller's. */
export async function goodsLine(
  db: Db,
  sellable: { kind: 'shop_item' | 'tier'; id: number },
  description: string,
  amountKopecks: number,
  sellerVat: number,
): Promise<ReceiptLine> {
  const item = await fiscalItemRow(db, sellable.kind, sellable.id);
  return {
    description: description.slice(0, 128),
    amountKopecks,
    vatCode: item?.vat_code ?? sellerVat,
    paymentMode: 'full_payment',
    paymentSubject: item?.payment_subject ?? DEFAULT_PAYMENT_SUBJECT,
  };
}

/**
 * Splits a spending over the player's paid top-ups, oldest first (FIFO by top-up), and queues a
 * completion receipt («полный расчёт», the advance offset) for each part of a top-up whose advance
 * receipt was sent. What no top-up covers was bonus, promo or other free money: no receipt.
 */
async function splitSpending(trx: Db, spend: { userId: number; amount: number; ref: string; note: string }): Promise<void> {
  const lots = await repo.moneyLots(trx, spend.userId);
  let left = spend.amount;
  const now = Date.now();
  const sellable = lots.some((l) => l.left > 0 && l.withReceipt) ? await repo.sellableOfRef(trx, spend.ref) : null;
  const item = sellable ? await fiscalItemRow(trx, sellable.kind, sellable.id) : undefined;
  for (const lot of lots) {
    if (left <= 0) break;
    if (lot.left <= 0) continue;
    const part = Math.min(left, lot.left);
    left -= part;
    const spendId = await repo.insertSpend(trx, {
      user_id: spend.userId,
      payment_id: lot.id,
      amount: part,
      ref: spend.ref,
      created_at: now,
    });
    if (!lot.withReceipt) continue;
    const advance = (await repo.receiptOfKind(trx, lot.id, 'advance'))[0];
    if (!advance) continue;
    const advanceLine = (JSON.parse(advance.lines) as ReceiptLine[])[0];
    // A самозанятый's income is registered once, at the top-up: there is no advance to offset.
    if (advanceLine?.description === 'Пополнение баланса') continue;
    const line: ReceiptLine = {
      description: spend.note.slice(0, 128) || 'Оплата с баланса',
      amountKopecks: part,
      vatCode: item?.vat_code ?? advanceLine?.vatCode ?? 1,
      paymentMode: 'full_payment',
      paymentSubject: item?.payment_subject ?? DEFAULT_PAYMENT_SUBJECT,
    };
    await repo.insertReceipt(trx, {
      payment_id: lot.id,
      user_id: spend.userId,
      provider: lot.provider,
      kind: 'settlement',
      state: 'pending',
      reason: null,
      amount: part,
      lines: JSON.stringify([line]),
      email: advance.email,
      ref: spend.ref,
      idempotence_key: `settle-${spendId}`,
      provider_receipt_id: null,
      parent_id: null,
      next_at: now,
      created_at: now,
      updated_at: now,
    });
  }
}

/**
 * Money of a spending came back to the balance (a delivery refunded): its free part comes back
 * first (it was spent last), then the money, newest top-up first. Each top-up gets back what it
 * paid (a negative balance_spends row: it may pay for goods again, and that spending gets its own
 * completion receipt), and its completion receipt is reversed by that much: a «возврат прихода»
 * with the goods' line (full_payment) and settlement prepayment, which restores the advance.
 */
async function returnSpending(
  trx: Db,
  back: { userId: number; amount: number; spentRef: string; spent: number; returnedBefore: number; ref: string },
): Promise<void> {
  const parts = await repo.spendParts(trx, back.userId, back.spentRef);
  if (parts.length === 0) return;
  const paid = parts.reduce((s, p) => s + Math.max(0, Number(p.amount)), 0);
  const free = Math.max(0, back.spent - paid);
  const moneyBack = Math.max(0, back.returnedBefore + back.amount - free) - Math.max(0, back.returnedBefore - free);
  // What each top-up still holds of this spending, the latest part first.
  const lots = new Map<string, number>();
  for (const p of [...parts].reverse()) lots.set(p.payment_id, (lots.get(p.payment_id) ?? 0) + Number(p.amount));
  let left = moneyBack;
  const now = Date.now();
  for (const [paymentId, held] of lots) {
    if (left <= 0) break;
    const take = Math.min(left, held);
    if (take <= 0) continue;
    left -= take;
    const spendId = await repo.insertSpend(trx, {
      user_id: back.userId,
      payment_id: paymentId,
      amount: -take,
      ref: back.spentRef,
      created_at: now,
    });
    const settlement = await repo.settlementOf(trx, paymentId, back.spentRef);
    if (!settlement) continue;
    const lines = JSON.parse(settlement.lines) as ReceiptLine[];
    await repo.insertReceipt(trx, {
      payment_id: paymentId,
      user_id: back.userId,
      provider: settlement.provider,
      kind: 'settle_refund',
      state: 'pending',
      reason: null,
      amount: take,
      lines: JSON.stringify([{ ...lines[0]!, amountKopecks: take }]),
      email: settlement.email,
      ref: back.ref,
      idempotence_key: `unsettle-${spendId}`,
      provider_receipt_id: null,
      parent_id: settlement.id,
      next_at: now,
      created_at: now,
      updated_at: now,
    });
  }
}

export const RECEIPT_TEXTS = {
  allSpent: 'Это пополнение уже потрачено на покупки (по ним выданы чеки полного расчёта): вернуть на карту нечего',
  parentNotRegistered: 'чек полного расчёта не зарегистрирован: отменять нечего (отправится, если отправить заново его)',
} as const;

/**
 * How much of a top-up with receipts may go back to the card: what was not spent (money spent on
 * goods had its completion receipt). A top-up without receipts is not bounded here.
 */
export async function refundableOf(db: Db, p: { id: string; amount: number; refunded_amount: number }): Promise<number> {
  if (!(await hasAdvance(db, p.id))) return Number.POSITIVE_INFINITY;
  return Math.max(0, Number(p.amount) - Number(p.refunded_amount) - (await repo.spentOf(db, p.id)));
}

export async function hasAdvance(db: Db, paymentId: string): Promise<boolean> {
  return (await repo.receiptOfKind(db, paymentId, 'advance')).length > 0;
}

/** Registers the reactions: a spending splits over top-ups; money of a spending back on the balance reverses its completion; a refund gets its row. */
export function registerReceiptHooks(): void {
  balanceSpent.on('payments-receipts', splitSpending);
  balanceReturned.on('payments-receipts', returnSpending);
  topupRefunded.on('payments-receipts', async (trx, r) => {
    // The refund receipt went with the refund (YooKassa makes a whole refund's from the payment's own).
    const advance = (await repo.receiptOfKind(trx, r.paymentId, 'advance'))[0];
    if (!advance) return;
    const n = (await repo.countReceipts(trx, r.paymentId, 'refund')) + 1;
    const lines = JSON.parse(advance.lines) as ReceiptLine[];
    const now = Date.now();
    await repo.insertReceipt(trx, {
      payment_id: r.paymentId,
      user_id: r.userId,
      provider: advance.provider,
      kind: 'refund',
      state: 'succeeded',
      reason: null,
      amount: r.amount,
      lines: JSON.stringify(lines.map((l) => ({ ...l, amountKopecks: r.amount }))),
      email: advance.email,
      ref: `payment:${r.paymentId}:refund:${n}`,
      idempotence_key: `refund-${r.paymentId}-${n}`,
      provider_receipt_id: null,
      parent_id: null,
      next_at: null,
      created_at: now,
      updated_at: now,
    });
  });
}

function applyState(state: ReceiptState): { state: string; reason: string | null; provider_receipt_id: string | null } {
  return {
    state: state.status === 'pending' ? 'sent' : state.status,
    reason: state.status === 'canceled' ? (state.reason ?? 'отменён платёжной системой') : null,
    provider_receipt_id: state.providerReceiptId,
  };
}

/**
 * One pass of the receipts runner: each pending receipt is sent with its idempotence key (a
 * repeat after a lost answer never makes a second one); a provider error it may get past is
 * retried later (backoff), up to RECEIPT_MAX_ATTEMPTS; a refusal cancels it with the provider's
 * reason. Receipts the provider is still registering are re-read, and advances whose payment ended
 * are settled.
 */
export async function sendReceipts(
  ctx: AppContext,
  adapters: Adapters,
  now = Date.now(),
  signal?: AbortSignal,
): Promise<{ sent: number; failed: number; checked: number }> {
  let sent = 0;
  let failed = 0;
  let checked = 0;
  for (const r of await repo.receiptsDue(ctx.db, now, BATCH)) {
    if (signal?.aborted) break;
    const adapter = adapters[r.provider as PaymentProvider];
    if (!adapter?.sendReceipt) continue;
    if (r.parent_id !== null) {
      // A reversal goes only after the completion it reverses is registered; one never registered needs none.
      const parent = await repo.receiptById(ctx.db, r.parent_id);
      if (parent?.state === 'pending' || parent?.state === 'sent') {
        await repo.moveReceipt(ctx.db, r.id, 'pending', { next_at: now + RETRY.baseMs });
        continue;
      }
      if (parent?.state !== 'succeeded') {
        await repo.moveReceipt(ctx.db, r.id, 'pending', { state: 'canceled', reason: RECEIPT_TEXTS.parentNotRegistered, next_at: null });
        continue;
      }
    }
    const payment = await repo.paymentForReceipt(ctx.db, r.payment_id);
    try {
      const state = await adapter.sendReceipt({
        key: r.idempotence_key,
        type: r.kind === 'refund' || r.kind === 'settle_refund' ? 'refund' : 'payment',
        providerPaymentId: payment?.provider_payment_id ?? null,
        email: r.email,
        lines: JSON.parse(r.lines) as ReceiptLine[],
        settlement: r.kind === 'settlement' || r.kind === 'settle_refund' ? 'prepayment' : 'cashless',
        taxSystemCode: (await receiptFiscal(ctx)).fiscal.taxSystemCode,
      });
      await repo.moveReceipt(ctx.db, r.id, 'pending', { ...applyState(state), attempts: Number(r.attempts) + 1, next_at: null });
      await recordEvent(ctx.db, {
        paymentId: r.payment_id,
        provider: r.provider,
        kind: 'receipt',
        outcome: `чек №${r.id} (${RECEIPT_KIND_TEXT[r.kind as 'settlement']}) отправлен: ${state.status}`,
        body: state.raw,
      });
      sent += 1;
    } catch (err) {
      failed += 1;
      const attempts = Number(r.attempts) + 1;
      const definitive = err instanceof ProviderError && err.definitive;
      const giveUp = definitive || attempts >= RECEIPT_MAX_ATTEMPTS;
      await repo.moveReceipt(ctx.db, r.id, 'pending', {
        state: giveUp ? 'canceled' : 'pending',
        reason: (err as Error).message.slice(0, 300),
        attempts,
        next_at: giveUp ? null : now + backoffMs(attempts, RETRY),
      });
      await recordEvent(ctx.db, {
        paymentId: r.payment_id,
        provider: r.provider,
        kind: 'receipt',
        outcome: `чек №${r.id} не принят${giveUp ? '' : ', повторится'}: ${(err as Error).message}`.slice(0, 200),
        body: err instanceof ProviderError ? (err.raw ?? undefined) : undefined,
      });
    }
  }
  for (const r of await repo.receiptsSent(ctx.db, BATCH)) {
    if (signal?.aborted) break;
    const adapter = adapters[r.provider as PaymentProvider];
    if (!adapter?.fetchReceipt) continue;
    try {
      const state = await adapter.fetchReceipt(r.provider_receipt_id!);
      if (state.status !== 'pending') await repo.moveReceipt(ctx.db, r.id, 'sent', applyState(state));
      checked += 1;
    } catch {
      // Asked again on the next pass.
    }
  }
  for (const a of await repo.advancesToSettle(ctx.db, BATCH))
    await repo.moveReceipt(ctx.db, a.id, 'sent', {
      state: a.status === 'canceled' ? 'canceled' : 'succeeded',
      reason: a.status === 'canceled' ? 'платёж не оплачен' : null,
    });
  return { sent, failed, checked };
}

export function receiptsJob(ctx: AppContext, adapters: () => Promise<Adapters>): ScheduledJobSpec {
  return {
    name: 'payments-receipts',
    everyMs: Math.min(ctx.config.payments.reconcileMs, 60_000),
    run: async (signal) => sendReceipts(ctx, await adapters(), Date.now(), signal),
  };
}

function view(r: Awaited<ReturnType<typeof repo.receiptPage>>[number]): AdminReceipt {
  const kind = r.kind as AdminReceipt['kind'];
  const state = r.state as AdminReceipt['state'];
  return {
    id: r.id,
    payment_id: r.payment_id,
    user_id: r.user_id,
    username: r.username ?? null,
    provider: r.provider,
    kind,
    kind_text: RECEIPT_KIND_TEXT[kind],
    state,
    state_text: RECEIPT_STATE_TEXT[state],
    reason: r.reason,
    amount: toRoubles(Number(r.amount)),
    lines: (JSON.parse(r.lines) as ReceiptLine[]).map((l) => ({
      description: l.description,
      amount: toRoubles(l.amountKopecks),
      vat_code: l.vatCode ?? null,
      payment_mode: l.paymentMode ?? null,
      payment_subject: l.paymentSubject ?? null,
    })),
    email: r.email,
    ref: r.ref,
    idempotence_key: r.idempotence_key,
    provider_receipt_id: r.provider_receipt_id,
    attempts: Number(r.attempts),
    created_at: Number(r.created_at),
    updated_at: Number(r.updated_at),
  };
}

export async function listReceipts(ctx: AppContext, q: AdminReceiptsQuery): Promise<AdminReceiptsPage> {
  const rows = await repo.receiptPage(ctx.db, q, 51);
  const items = rows.slice(0, 50).map(view);
  return { items, next: rows.length > 50 ? items.at(-1)!.id : null };
}

/** A canceled receipt goes again under a new idempotence key (the old key's answer stays the refusal). */
export async function resendReceipt(ctx: AppContext, id: number, actorId: number): Promise<AdminReceipt> {
  const r = await repo.receiptById(ctx.db, id);
  if (!r) throw notFound('Чек не найден', { code: 'receipt_not_found' });
  if (r.state !== 'canceled' || (r.kind !== 'settlement' && r.kind !== 'settle_refund'))
    throw conflict('Отправить заново можно только неотправленный чек полного расчёта или его возврата', { code: 'receipt_not_resendable' });
  const again = (key: string) => {
    const base = key.replace(/-r\d+$/, '');
    return `${base}-r${Number(/-r(\d+)$/.exec(key)?.[1] ?? 0) + 1}`;
  };
  await ctx.db.transaction().execute(async (trx) => {
    const moved = await repo.moveReceipt(trx, id, 'canceled', {
      state: 'pending',
      idempotence_key: again(r.idempotence_key),
      attempts: 0,
      next_at: Date.now(),
      provider_receipt_id: null,
    });
    if (!moved) throw conflict('Чек уже отправляется', { code: 'receipt_not_resendable' });
    // Its reversals, canceled while it was not registered, follow it.
    for (const c of await repo.reversalsOf(trx, id))
      if (c.state === 'canceled')
        await repo.moveReceipt(trx, c.id, 'canceled', {
          state: 'pending',
          idempotence_key: again(c.idempotence_key),
          attempts: 0,
          next_at: Date.now(),
          provider_receipt_id: null,
        });
    await recordAudit(trx, { actorId, action: 'receipt.resend', entity: 'payment', entityId: r.payment_id, after: { receipt: id } });
  });
  return view({ ...(await repo.receiptPage(ctx.db, {}, 1_000_000)).find((x) => x.id === id)! });
}
