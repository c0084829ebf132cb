import { randomUUID } from 'node:crypto';
import {
  bonusFor,
  PAYMENT_PROVIDER_TEXT,
  PAYMENT_PROVIDERS,
  PAYMENT_STATUS_TEXT,
  PAYMENT_TEXTS,
  type PaymentStatus,
  type CreatePaymentBody,
  type PaymentCreated,
  type PaymentOptions,
  type PaymentProvider,
  type PlayerPayment,
} from '@kubik/contract';
import type { AppContext } from '../../context.ts';
import type { Db } from '../../db/index.ts';
import { badRequest, HttpError, isUniqueViolation, notFound, tooMany } from '../../lib/errors.ts';
import { toRoubles } from '../../lib/money.ts';
import { leastArriving, ProviderError, type NotificationReply, type ProviderPaymentState } from '../../lib/payments/index.ts';
import type { User } from '../users/users.repo.ts';
import { postLedger } from '../ledger/ledger.service.ts';
import { checkTopupPromo, redeemTopupPromo } from '../purchases/purchases.promo.ts';
import { notify as tellPlayer, rubles } from '../notices/notices.service.ts';
import { siteName } from '../site/site.settings.ts';
import { foreignPaymentNotified, goodsPaid, topupCredited, type TopupPayer } from '../users/users.ports.ts';
import { refundConfirmed } from './payments.refund.ts';
import * as repo from './payments.repo.ts';
import { formatRub, PAYMENT_SERVER_TEXTS, recordEvent, type PaymentRow } from './payments.repo.ts';
import { PaymentSettings } from './payments.settings.ts';
import { ProviderRegistry, type Adapters } from './payments.providers.ts';
import { advanceOf, receiptFiscal, recordAdvance } from './receipts.service.ts';
import { paymentConsentsNeeded, publishedVersions, recordConsents, requireConsents } from '../site/legal.service.ts';

/** A pending payment nobody paid for this long is canceled. */
export const PAYMENT_EXPIRY_MS = 24 * 3_600_000;

export function toPlayerPayment(p: PaymentRow): PlayerPayment {
  return {
    id: p.id,
    provider: p.provider as PaymentProvider,
    amount: toRoubles(Number(p.amount)),
    status: p.status as PlayerPayment['status'],
    created_at: Number(p.created_at),
    paid_at: p.paid_at === null ? null : Number(p.paid_at),
    bonus: toRoubles(Number(p.bonus)),
  };
}

export type PaymentsService = ReturnType<typeof createPaymentsService>;

const services = new WeakMap<AppContext, PaymentsService>();

/** The site's one payments service (routes, jobs and tests share it). */
export function paymentsService(ctx: AppContext): PaymentsService {
  let s = services.get(ctx);
  if (!s) services.set(ctx, (s = createPaymentsService(ctx)));
  return s;
}

/**
 * Balance top-up. A payment is credited only on the provider's own word (its API, re-read after a
 * notification, on the player's return and by reconciliation), once: the state changes forward
 * only with conditional updates, and the `topup` ledger row is unique per payment.
 */
export function createPaymentsService(ctx: AppContext, fixedAdapters?: Adapters) {
  const { db, config } = ctx;
  const cfg = config.payments;
  const registry = new ProviderRegistry(ctx);
  /** The connected providers now (the owner may connect one on any instance at any moment). */
  const adapters = async (): Promise<Adapters> => fixedAdapters ?? registry.adapters();

  async function adapterOf(provider: string) {
    const a = (await adapters())[provider as PaymentProvider];
    if (!a) throw new Error(`payment provider ${provider} is not configured`);
    return a;
  }

  /** A provider's bounds (kopecks): its own where the owner set them, else the site's. */
  async function bounds(provider: PaymentProvider): Promise<{ min: number; max: number }> {
    if (fixedAdapters) return { min: cfg.minKopecks, max: cfg.maxKopecks };
    const e = (await registry.effective())[provider];
    return { min: e.minKopecks ?? cfg.minKopecks, max: e.maxKopecks ?? cfg.maxKopecks };
  }

  async function options(): Promise<PaymentOptions> {
    const settings = await ctx.settings.get(PaymentSettings);
    const on = await adapters();
    const providers = [];
    for (const id of PAYMENT_PROVIDERS.filter((p) => on[p])) {
      const b = await bounds(id);
      providers.push({ id, name: PAYMENT_PROVIDER_TEXT[id], min: toRoubles(b.min), max: toRoubles(b.max) });
    }
    const min = providers.length > 0 ? Math.min(...providers.map((p) => p.min)) : toRoubles(cfg.minKopecks);
    const max = providers.length > 0 ? Math.max(...providers.map((p) => p.max)) : toRoubles(cfg.maxKopecks);
    const presets = [100, 300, 500, 1000, 2000, 5000].filter((r) => r >= min && r <= max);
    return { providers, min, max, presets, bonus_rules: settings.bonus_rules };
  }

  /** `payer`: the creating request's address and device cookie (kept for the referral check when it is credited). */
  async function create(user: User, body: CreatePaymentBody, payer: TopupPayer = { ip: null, deviceHash: null }): Promise<PaymentCreated> {
    const adapter = (await adapters())[body.provider];
    if (!adapter) throw badRequest(PAYMENT_TEXTS.providerOff, { code: 'provider_off', field: 'provider' });
    const amount = Math.round(body.amount * 100);
    const b = await bounds(body.provider);
    if (amount < b.min) throw badRequest(PAYMENT_TEXTS.amountMin(formatRub(b.min)), { code: 'amount_too_small', field: 'amount' });
    if (amount > b.max) throw badRequest(PAYMENT_TEXTS.amountMax(formatRub(b.max)), { code: 'amount_too_large', field: 'amount' });
    // A top-up code is checked now and counted when the money arrives (purchases.promo.ts).
    const promoId = body.promo_code ? await checkTopupPromo(db, body.promo_code, user.id) : null;
    // Once the owner has published the offer or the policy, a payment needs the player's consent
    // (a new offer version asks again) and, once, the adult-or-parental-consent confirmation.
    const legal = Object.keys(await publishedVersions(db)).some((k) => k === 'offer' || k === 'privacy');
    if (legal) requireConsents(await paymentConsentsNeeded(db, user.id), body.consents);
    const receipt = await receiptFiscal(ctx);
    const withReceipt = !fixedAdapters && adapter.sendReceipt !== undefined && (await registry.effective())[body.provider].receipts;
    // The receipt goes to the account's e-mail; an account from the game without one has a
    // placeholder nobody reads (…@authme.invalid): the player gives an address first.
    if (withReceipt && (!user.email || /\.invalid$/i.test(user.email)))
      throw badRequest('Укажите почту в профиле: на неё придёт чек об оплате', { code: 'receipt_email_required', field: 'email' });
    const id = randomUUID();
    const now = Date.now();
    const cap = cfg.maxPending ?? 5;
    // The cap and the insert in one transaction; on PostgreSQL the player's row is locked so two
    // requests at once cannot both pass the count.
    await db.transaction().execute(async (trx) => {
      await repo.lockPlayer(trx, ctx.dbKind, user.id);
      const waiting = await repo.countPending(trx, user.id, now - PAYMENT_EXPIRY_MS);
      if (waiting >= cap) throw tooMany(PAYMENT_SERVER_TEXTS.tooManyPending(cap), { code: 'too_many_pending' });
      if (legal && body.consents?.length)
        await recordConsents(trx, user.id, body.consents, { ip: payer.ip, userAgent: payer.userAgent ?? null, source: 'payment' });
      await repo.insertPayment(trx, {
        id,
        user_id: user.id,
        provider: body.provider,
        amount,
        status: 'pending',
        promo_id: promoId,
        created_at: now,
        updated_at: now,
        payer_ip: payer.ip?.slice(0, 64) ?? null,
        payer_device: payer.deviceHash,
        // The advance receipt goes with the payment as it is now; the crediting transaction records its row.
        receipt: withReceipt
          ? advanceOf({ amount, email: user.email, vatCode: receipt.vatCode, selfEmployed: receipt.fiscal.selfEmployed })
          : null,
      });
    });
    try {
      const created = await adapter.create({
        id,
        amountKopecks: amount,
        description: `Пополнение баланса ${user.username} на ${formatRub(amount)} (${await siteName(ctx)})`,
        returnUrl: `${config.publicUrl}/profile?payment=${id}`,
        notificationUrl: `${config.publicUrl}/api/payments/${body.provider}/notify`,
        email: user.email,
        vatCode: receipt.vatCode,
        fiscal: receipt.fiscal,
      });
      await recordEvent(db, {
        paymentId: id,
        provider: body.provider,
        kind: 'create',
        outcome: created.state ? `создан у провайдера: ${created.state.providerStatus}` : 'выдана форма оплаты',
        body: created.state?.raw ?? created.form ?? created.confirmationUrl,
      });
      await repo.recordCreated(db, id, {
        provider_payment_id: created.providerPaymentId,
        confirmation_url: created.confirmationUrl ?? created.form?.action ?? null,
        provider_status: created.state?.providerStatus ?? null,
        updated_at: Date.now(),
      });
      return {
        id,
        status: 'pending',
        confirmation_url: created.confirmationUrl,
        form: created.form ?? null,
        label: created.label ?? null,
      };
    } catch (err) {
      const raw = err instanceof ProviderError ? err.raw : null;
      await recordEvent(db, {
        paymentId: id,
        provider: body.provider,
        kind: 'error',
        outcome: `не создан: ${(err as Error).message}`,
        body: raw ?? undefined,
      });
      await repo.cancelPending(db, id, Date.now());
      throw new HttpError(502, PAYMENT_TEXTS.providerFailed, { code: 'provider_failed' });
    }
  }

  async function list(userId: number): Promise<PlayerPayment[]> {
    return (await repo.paymentsOfPlayer(db, userId, 100)).map(toPlayerPayment);
  }

  /** The player's own payment; a pending one is re-read from the provider first (the return page asks this). */
  async function getOwn(userId: number, id: string): Promise<PlayerPayment> {
    let row = await repo.ownPayment(db, id, userId);
    if (!row) throw notFound(PAYMENT_TEXTS.notFound, { code: 'payment_not_found' });
    const canFetch = (await adapters())[row.provider as PaymentProvider]?.canFetch ?? false;
    if (row.status === 'pending' && canFetch && (row.checked_at === null || Date.now() - Number(row.checked_at) > 2000)) {
      await refresh(row).catch(() => undefined);
      row = (await repo.getPayment(db, id))!;
    }
    return toPlayerPayment(row);
  }

  /** Asks the provider about the payment and moves it forward on what it says. */
  async function refresh(row: PaymentRow): Promise<string> {
    if (!row.provider_payment_id) return 'нет платежа у провайдера';
    const adapter = await adapterOf(row.provider);
    await repo.markChecked(db, row.id, Date.now());
    let state: ProviderPaymentState;
    try {
      state = await adapter.fetch(row.provider_payment_id);
    } catch (err) {
      await recordEvent(db, {
        paymentId: row.id,
        provider: row.provider,
        kind: 'error',
        outcome: `не удалось узнать состояние: ${(err as Error).message}`,
        body: err instanceof ProviderError ? (err.raw ?? undefined) : undefined,
      });
      throw err;
    }
    const outcome = await apply(row, state);
    await recordEvent(db, { paymentId: row.id, provider: row.provider, kind: 'fetch', outcome, body: state.raw });
    return outcome;
  }

  /** Why the provider's «paid» cannot credit this payment (the event's outcome), or null when it can. */
  function cannotCredit(row: PaymentRow, state: ProviderPaymentState): string | null {
    if (state.orderId !== null && state.orderId !== row.id) return `ответ о чужом платеже (${state.orderId}): ничего не изменено`;
    if (row.status !== 'pending') return `без изменений (${PAYMENT_STATUS_TEXT[row.status as PaymentStatus] ?? row.status})`;
    const asked = Number(row.amount);
    if (state.amountRule === 'covers') {
      const percent = state.commissionPercent ?? 0;
      const least = leastArriving(asked, percent);
      if (state.amountKopecks < least)
        return `пришло ${formatRub(state.amountKopecks)}, а за ${formatRub(asked)} за вычетом комиссии до ${percent} % приходит не меньше ${formatRub(least)}: не зачислено`;
    } else if (state.amountKopecks !== asked)
      return `сумма у провайдера ${formatRub(state.amountKopecks)} не равна ${formatRub(asked)}: не зачислено`;
    return null;
  }

  /**
   * Credits the asked amount (and the bonuses) inside `trx`; the conditional update makes it happen
   * once. `ruleBonus` is read before the transaction (SQLite has one connection).
   */
  async function credit(trx: Db, row: PaymentRow, state: ProviderPaymentState, ruleBonus: number): Promise<string> {
    const now = Date.now();
    const changed = await repo.markSucceeded(trx, row.id, {
      paid_at: now,
      bonus: ruleBonus,
      provider_status: state.providerStatus,
      provider_operation_id: state.operationId ?? null,
      updated_at: now,
    });
    if (!changed) return 'уже учтён';
    // A promo code's bonus joins the settings' one (one bonus row per payment).
    const promoBonus =
      row.promo_id === null
        ? 0
        : await redeemTopupPromo(trx, {
            dbKind: ctx.dbKind,
            promoId: row.promo_id,
            userId: row.user_id,
            amount: Number(row.amount),
            ref: `payment:${row.id}`,
            now,
          });
    const bonus = ruleBonus + promoBonus;
    if (promoBonus > 0) await repo.setBonus(trx, row.id, bonus);
    // A top-up puts money on the balance as an advance; a payment for goods (a subscription's
    // period) passes through it to the goods, its receipt («полный расчёт») having gone with the
    // payment: no advance row, no top-up FIFO, no referral reward, no «Баланс пополнен».
    const topup = row.purpose !== 'goods';
    const via = PAYMENT_PROVIDER_TEXT[row.provider as PaymentProvider] ?? row.provider;
    await postLedger(trx, {
      userId: row.user_id,
      amount: Number(row.amount),
      reason: 'topup',
      authorId: null,
      ref: `payment:${row.id}`,
      note: topup ? `Пополнение через ${via}` : `Оплата через ${via}`,
    });
    const credited = {
      paymentId: row.id,
      userId: row.user_id,
      amount: Number(row.amount),
      paidAt: now,
      payer: { ip: row.payer_ip, deviceHash: row.payer_device },
      raw: state.raw,
    };
    if (!topup) {
      await goodsPaid.run(trx, credited);
      return `оплачено ${formatRub(Number(row.amount))}`;
    }
    // No money moves without its receipt row: the advance that went with the payment is recorded here.
    await recordAdvance(trx, row);
    await topupCredited.run(trx, credited);
    if (bonus > 0)
      await postLedger(trx, {
        userId: row.user_id,
        amount: bonus,
        reason: 'bonus',
        authorId: null,
        ref: `payment:${row.id}`,
        note: `Бонус к пополнению на ${formatRub(Number(row.amount))}`,
      });
    await tellPlayer(
      trx,
      row.user_id,
      {
        kind: 'topup',
        title: `Баланс пополнен на ${rubles(Number(row.amount) + bonus)}`,
        body: bonus > 0 ? `Оплата ${rubles(Number(row.amount))} и бонус ${rubles(bonus)}` : null,
        link: '/profile',
        data: { payment_id: row.id, amount: Number(row.amount) / 100, bonus: bonus / 100 },
      },
      now,
    );
    return bonus > 0
      ? `зачислено ${formatRub(Number(row.amount))} и бонус ${formatRub(bonus)}`
      : `зачислено ${formatRub(Number(row.amount))}`;
  }

  /** Applies the provider's word; a conditional update makes each change happen once. */
  async function apply(row: PaymentRow, state: ProviderPaymentState): Promise<string> {
    if (state.orderId !== null && state.orderId !== row.id) return `ответ о чужом платеже (${state.orderId}): ничего не изменено`;
    const now = Date.now();
    if (state.status === 'refunded') return refundConfirmed(db, row, state);
    if (row.status !== 'pending') return `без изменений (${PAYMENT_STATUS_TEXT[row.status as PaymentStatus] ?? row.status})`;
    if (state.status === 'succeeded') {
      const refused = cannotCredit(row, state);
      if (refused) return refused;
      const ruleBonus = row.purpose !== 'goods' ? bonusFor(Number(row.amount), (await ctx.settings.get(PaymentSettings)).bonus_rules) : 0;
      try {
        return await db.transaction().execute((trx) => credit(trx, row, state, ruleBonus));
      } catch (err) {
        if (isUniqueViolation(err)) return 'уже учтён';
        throw err;
      }
    }
    if (state.status === 'canceled') {
      return (await repo.cancelPending(db, row.id, now, state.providerStatus)) ? 'отменён' : 'без изменений';
    }
    await repo.notePendingStatus(db, row.id, state.providerStatus);
    return `ещё не оплачен (${state.providerStatus})`;
  }

  /**
   * The provider's refusal for a sender outside its published addresses, or null: judged from
   * memory before the body is read or any limit counted, so a flood of forgeries costs no database work.
   */
  async function refuseSender(provider: string, ip: string): Promise<NotificationReply | null> {
    const adapter = (await adapters())[provider as PaymentProvider];
    if (!adapter?.acceptsSender || adapter.acceptsSender(ip)) return null;
    await registry.refusals.add(provider, 'foreign_ip', ip);
    return adapter.notificationReply(false);
  }

  /**
   * A provider's notification: kept as an event, judged by the provider's rule (YooKassa: sender
   * address; T-Bank: Token), and then only the payment it names is re-read from the provider.
   */
  async function notify(provider: string, ip: string, body: unknown): Promise<NotificationReply> {
    const adapter = (await adapters())[provider as PaymentProvider];
    if (!adapter) throw notFound(PAYMENT_TEXTS.providerOff, { code: 'provider_off' });
    const verdict = adapter.verifyNotification(ip, body);
    if (!verdict.ok) {
      // Refusals are counted, not kept: a flood of forgeries costs one row per reason and no write per request.
      await registry.refusals.add(provider, verdict.reason, ip);
      // An authentic one refused for what it says is the transfer's verdict when nothing re-reads it.
      if (verdict.operation && !adapter.canFetch) await refuseOperation(provider, ip, verdict.operation, verdict.message);
      return adapter.notificationReply(false);
    }
    if (verdict.test) {
      await registry.refusals.add(provider, 'test', ip);
      return adapter.notificationReply(true);
    }
    const row =
      verdict.paymentId && !/^[0-9a-f-]{36}$/.test(verdict.paymentId) ? undefined : await repo.notifiedPayment(db, provider, verdict);
    const named = verdict.paymentId ?? verdict.providerPaymentId;
    await recordEvent(db, {
      paymentId: row?.id ?? null,
      provider,
      kind: 'notification',
      ip,
      outcome: !row
        ? `платёж ${named} не наш: ничего не изменено`
        : adapter.canFetch
          ? 'принято, состояние перечитывается у провайдера'
          : 'принято: подпись верна',
      body,
    });
    if (!row) {
      if (verdict.providerPaymentId) await foreignPaymentNotified.run(provider, verdict.providerPaymentId);
      return adapter.notificationReply(true);
    }
    if (adapter.canFetch) {
      // A failed re-read (recorded on the payment by refresh) answers 502, so the provider repeats
      // the notification later; never a 500.
      try {
        await refresh(row);
      } catch (err) {
        if (err instanceof ProviderError) throw new HttpError(502, PAYMENT_TEXTS.providerFailed, { code: 'provider_failed' });
        throw err;
      }
    } else if (verdict.state) {
      // No API to ask (ЮMoney without a token, FreeKassa without a key): the signed notification is
      // the provider's word, and each transfer it names is judged once.
      const state = verdict.state;
      const outcome = state.operationId && state.status === 'succeeded' ? await applyOperation(row, state) : await apply(row, state);
      await recordEvent(db, { paymentId: row.id, provider, kind: 'fetch', outcome, body: undefined });
    }
    return adapter.notificationReply(true);
  }

  /**
   * A signed notification's «paid», taken on its word: the transfer is claimed (a conditional
   * insert) and judged in one transaction, credited or refused, and that first verdict stands —
   * a repeat, a copy with an unsigned field changed, or the same transfer racing in from another
   * instance finds it claimed and changes nothing.
   */
  async function applyOperation(row: PaymentRow, state: ProviderPaymentState): Promise<string> {
    const operationId = state.operationId!;
    const ruleBonus = row.purpose !== 'goods' ? bonusFor(Number(row.amount), (await ctx.settings.get(PaymentSettings)).bonus_rules) : 0;
    try {
      return await db.transaction().execute(async (trx) => {
        const claimed = await repo.claimOperation(trx, row.provider, operationId, row.id, 'рассматривается');
        if (!claimed) {
          const first = await repo.operationOutcome(trx, row.provider, operationId);
          return `операция ${operationId} уже рассмотрена (${first?.outcome ?? '—'}): ничего не изменено`;
        }
        const outcome = cannotCredit(row, state) ?? (await credit(trx, row, state, ruleBonus));
        await repo.setOperationOutcome(trx, row.provider, operationId, outcome);
        return outcome;
      });
    } catch (err) {
      if (isUniqueViolation(err)) return 'уже учтён';
      throw err;
    }
  }

  /** An authentic notification refused for what it says: its transfer, if it names a payment of ours, is judged (refused) now. */
  async function refuseOperation(
    provider: string,
    ip: string,
    op: { paymentId: string; operationId: string },
    message: string,
  ): Promise<void> {
    if (!/^[0-9a-f-]{36}$/.test(op.paymentId)) return;
    const row = await repo.paymentOfProvider(db, op.paymentId, provider);
    if (!row) return;
    if (await repo.claimOperation(db, provider, op.operationId, row.id, `отклонено: ${message}`))
      await recordEvent(db, {
        paymentId: row.id,
        provider,
        kind: 'notification',
        ip,
        outcome: `операция ${op.operationId} отклонена: ${message}`,
      });
  }

  return { adapters, registry, options, create, list, getOwn, refresh, apply, refuseSender, notify };
}
