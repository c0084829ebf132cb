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
import { badRequest, HttpError, isUniqueViolation, notFound } from '../../lib/errors.ts';
import { toRoubles } from '../../lib/money.ts';
import {
  createAdapters,
  ProviderError,
  type NotificationReply,
  type PaymentAdapter,
  type ProviderPaymentState,
} from '../../lib/payments/index.ts';
import type { User } from '../users/users.repo.ts';
import { postLedger } from '../ledger/ledger.service.ts';
import { notify as tellPlayer, rubles } from '../notices/notices.service.ts';
import { siteName } from '../site/site.settings.ts';
import { refundConfirmed } from './payments.refund.ts';
import { formatRub, recordEvent, type PaymentRow } from './payments.repo.ts';
import { PaymentSettings } from './payments.settings.ts';

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
export function createPaymentsService(
  ctx: AppContext,
  adapters: Partial<Record<PaymentProvider, PaymentAdapter>> = createAdapters(ctx.config.payments),
) {
  const { db, config } = ctx;
  const cfg = config.payments;

  function adapterOf(provider: string): PaymentAdapter {
    const a = adapters[provider as PaymentProvider];
    if (!a) throw new Error(`payment provider ${provider} is not configured`);
    return a;
  }

  async function options(): Promise<PaymentOptions> {
    const settings = await ctx.settings.get(PaymentSettings);
    const presets = [100, 300, 500, 1000, 2000, 5000].filter((r) => r * 100 >= cfg.minKopecks && r * 100 <= cfg.maxKopecks);
    return {
      providers: PAYMENT_PROVIDERS.filter((p) => adapters[p]).map((id) => ({ id, name: PAYMENT_PROVIDER_TEXT[id] })),
      min: toRoubles(cfg.minKopecks),
      max: toRoubles(cfg.maxKopecks),
      presets,
      bonus_rules: settings.bonus_rules,
    };
  }

  async function create(user: User, body: CreatePaymentBody): Promise<PaymentCreated> {
    const adapter = adapters[body.provider];
    if (!adapter) throw badRequest(PAYMENT_TEXTS.providerOff, { code: 'provider_off', field: 'provider' });
    const amount = Math.round(body.amount * 100);
    if (amount < cfg.minKopecks)
      throw badRequest(PAYMENT_TEXTS.amountMin(formatRub(cfg.minKopecks)), { code: 'amount_too_small', field: 'amount' });
    if (amount > cfg.maxKopecks)
      throw badRequest(PAYMENT_TEXTS.amountMax(formatRub(cfg.maxKopecks)), { code: 'amount_too_large', field: 'amount' });
    const settings = await ctx.settings.get(PaymentSettings);
    const id = randomUUID();
    const now = Date.now();
    await db
      .insertInto('payments')
      .values({ id, user_id: user.id, provider: body.provider, amount, status: 'pending', created_at: now, updated_at: now })
      .execute();
    try {
      const created = await adapter.create({
        id,
        amountKopecks: amount,
        description: `Пополнение баланса ${user.username} на ${formatRub(amount)} (${await siteName(ctx)})`,
        returnUrl: `${config.publicUrl}/profile?payment=${id}`,
        notificationUrl: `${config.publicUrl}/api/payments/${body.provider}/notify`,
        email: user.email,
        vatCode: settings.vat_code,
      });
      await recordEvent(db, {
        paymentId: id,
        provider: body.provider,
        kind: 'create',
        outcome: `создан у провайдера: ${created.state.providerStatus}`,
        body: created.state.raw,
      });
      await db
        .updateTable('payments')
        .set({
          provider_payment_id: created.providerPaymentId,
          confirmation_url: created.confirmationUrl,
          provider_status: created.state.providerStatus,
          updated_at: Date.now(),
        })
        .where('id', '=', id)
        .execute();
      return { id, status: 'pending', confirmation_url: created.confirmationUrl };
    } catch (err) {
      const raw = err instanceof ProviderError ? err.raw : null;
      await recordEvent(db, {
        paymentId: id,
        provider: body.provider,
        kind: 'error',
        outcome: `не создан: ${(err as Error).message}`,
        body: raw ?? undefined,
      });
      await db
        .updateTable('payments')
        .set({ status: 'canceled', canceled_at: Date.now(), updated_at: Date.now() })
        .where('id', '=', id)
        .where('status', '=', 'pending')
        .execute();
      throw new HttpError(502, PAYMENT_TEXTS.providerFailed, { code: 'provider_failed' });
    }
  }

  async function list(userId: number): Promise<PlayerPayment[]> {
    const rows = await db
      .selectFrom('payments')
      .selectAll()
      .where('user_id', '=', userId)
      .where('provider_payment_id', 'is not', null)
      .orderBy('created_at', 'desc')
      .limit(100)
      .execute();
    return rows.map(toPlayerPayment);
  }

  /** The player's own payment; a pending one is re-read from the provider first (the return page asks this). */
  async function getOwn(userId: number, id: string): Promise<PlayerPayment> {
    let row = await db.selectFrom('payments').selectAll().where('id', '=', id).where('user_id', '=', userId).executeTakeFirst();
    if (!row) throw notFound(PAYMENT_TEXTS.notFound, { code: 'payment_not_found' });
    if (row.status === 'pending' && (row.checked_at === null || Date.now() - Number(row.checked_at) > 2000)) {
      await refresh(row).catch(() => undefined);
      row = (await db.selectFrom('payments').selectAll().where('id', '=', id).executeTakeFirst())!;
    }
    return toPlayerPayment(row);
  }

  /** Asks the provider about the payment and moves it forward on what it says. */
  async function refresh(row: PaymentRow): Promise<string> {
    if (!row.provider_payment_id) return 'нет платежа у провайдера';
    const adapter = adapterOf(row.provider);
    await db.updateTable('payments').set({ checked_at: Date.now() }).where('id', '=', row.id).execute();
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

  /** Applies the provider's word; a conditional update makes each change happen once. */
  async function apply(row: PaymentRow, state: ProviderPaymentState): Promise<string> {
    if (state.orderId !== null && state.orderId !== row.id) return `ответ о чужом платеже (${state.orderId}): ничего не изменено`;
    const now = Date.now();
    if (state.status === 'refunded') return refundConfirmed(db, row, state);
    if (row.status !== 'pending') return `без изменений (${PAYMENT_STATUS_TEXT[row.status as PaymentStatus] ?? row.status})`;
    if (state.status === 'succeeded') {
      if (state.amountKopecks !== Number(row.amount))
        return `сумма у провайдера ${formatRub(state.amountKopecks)} не равна ${formatRub(Number(row.amount))}: не зачислено`;
      const settings = await ctx.settings.get(PaymentSettings);
      const bonus = bonusFor(Number(row.amount), settings.bonus_rules);
      try {
        return await db.transaction().execute(async (trx) => {
          const changed = await trx
            .updateTable('payments')
            .set({ status: 'succeeded', paid_at: now, bonus, provider_status: state.providerStatus, updated_at: now })
            .where('id', '=', row.id)
            .where('status', '=', 'pending')
            .executeTakeFirst();
          if (Number(changed.numUpdatedRows) !== 1) return 'уже учтён';
          await postLedger(trx, {
            userId: row.user_id,
            amount: Number(row.amount),
            reason: 'topup',
            authorId: null,
            ref: `payment:${row.id}`,
            note: `Пополнение через ${PAYMENT_PROVIDER_TEXT[row.provider as PaymentProvider] ?? row.provider}`,
          });
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
        });
      } catch (err) {
        if (isUniqueViolation(err)) return 'уже учтён';
        throw err;
      }
    }
    if (state.status === 'canceled') {
      const changed = await db
        .updateTable('payments')
        .set({ status: 'canceled', canceled_at: now, provider_status: state.providerStatus, updated_at: now })
        .where('id', '=', row.id)
        .where('status', '=', 'pending')
        .executeTakeFirst();
      return Number(changed.numUpdatedRows) === 1 ? 'отменён' : 'без изменений';
    }
    await db
      .updateTable('payments')
      .set({ provider_status: state.providerStatus })
      .where('id', '=', row.id)
      .where('status', '=', 'pending')
      .execute();
    return `ещё не оплачен (${state.providerStatus})`;
  }

  /**
   * A provider's notification: kept as an event, judged by the provider's rule (YooKassa: sender
   * address; T-Bank: Token), and then only the payment it names is re-read from the provider.
   */
  async function notify(provider: string, ip: string, body: unknown): Promise<NotificationReply> {
    const adapter = adapters[provider as PaymentProvider];
    if (!adapter) throw notFound(PAYMENT_TEXTS.providerOff, { code: 'provider_off' });
    const verdict = adapter.verifyNotification(ip, body);
    if (!verdict.ok) {
      await recordEvent(db, { paymentId: null, provider, kind: 'notification', ip, outcome: `отклонено: ${verdict.message}`, body });
      return adapter.notificationReply(false);
    }
    const row = await db
      .selectFrom('payments')
      .selectAll()
      .where('provider', '=', provider)
      .where('provider_payment_id', '=', verdict.providerPaymentId)
      .executeTakeFirst();
    await recordEvent(db, {
      paymentId: row?.id ?? null,
      provider,
      kind: 'notification',
      ip,
      outcome: row ? 'принято, состояние перечитывается у провайдера' : `платёж ${verdict.providerPaymentId} не наш: ничего не изменено`,
      body,
    });
    if (!row) return adapter.notificationReply(true);
    // A failed re-read answers with an error, so the provider repeats the notification later.
    await refresh(row);
    return adapter.notificationReply(true);
  }

  return { adapters, options, create, list, getOwn, refresh, apply, notify };
}
