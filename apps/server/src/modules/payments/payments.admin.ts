import {
  ADMIN_PAYMENT_TEXTS,
  ADMIN_PAYMENTS_PAGE_SIZE,
  PAYMENT_PROVIDER_TEXT,
  PAYMENT_STATUS_TEXT,
  PAYMENT_TEXTS,
  type AdminPayment,
  type AdminPaymentDetail,
  type AdminPaymentPage,
  type AdminPaymentsCsvQuery,
  type AdminPaymentsQuery,
  type AdminPaymentTotals,
  type PaymentProvider,
  type PaymentStatus,
  type UserCard,
} from '@kubik/contract';
import { PROVIDER_STATUS_TEXT } from '@kubik/contract/payment-connections';
import type { AppContext } from '../../context.ts';
import { badRequest, notFound } from '../../lib/errors.ts';
import { toRoubles } from '../../lib/money.ts';
import { redactSignatures } from './payments.redact.ts';
import { bonusShare, refundBlock, refundLeft, refundMax } from './payments.refund.ts';
import * as repo from './payments.repo.ts';
import type { ListedPayment, PaymentFilter } from './payments.repo.ts';
import type { PaymentsService } from './payments.service.ts';

const CSV_MAX_ROWS = 100_000;
const EVENTS_MAX = 300;

type Filter = Pick<AdminPaymentsQuery, 'status' | 'provider' | 'player' | 'from' | 'to'>;

/** Epoch ms of a `from`/`to` value: digits are ms, anything else ISO 8601. */
function moment(value: string | undefined, field: 'from' | 'to'): number | null {
  if (value === undefined || value === '') return null;
  const ms = /^\d+$/.test(value) ? Number(value) : Date.parse(value);
  if (!Number.isSafeInteger(ms) || ms < 0 || ms > 253_402_300_799_999)
    throw badRequest(ADMIN_PAYMENT_TEXTS.badPeriod, { code: 'invalid', field });
  return ms;
}

/** The owner's filter with its period read (a bad date is refused here, before any query). */
function filterOf(f: Filter): PaymentFilter {
  return { status: f.status, provider: f.provider, player: f.player, from: moment(f.from, 'from'), to: moment(f.to, 'to') };
}

const ms = (v: number | null) => (v === null ? null : Number(v));

async function toAdmin(ctx: AppContext, rows: ListedPayment[]): Promise<AdminPayment[]> {
  const askers = [...new Set(rows.map((r) => r.refund_requested_by).filter((id): id is number => id !== null))];
  const names = new Map<number, string>();
  if (askers.length > 0) for (const u of await repo.usernamesOf(ctx.db, askers)) names.set(u.id, u.username);
  return rows.map((r) => ({
    id: r.id,
    user_id: r.user_id,
    username: r.username,
    provider: r.provider as PaymentProvider,
    amount: toRoubles(Number(r.amount)),
    bonus: toRoubles(Number(r.bonus)),
    status: r.status as PaymentStatus,
    provider_payment_id: r.provider_payment_id,
    provider_status: r.provider_status,
    created_at: Number(r.created_at),
    paid_at: ms(r.paid_at),
    canceled_at: ms(r.canceled_at),
    refunded_at: ms(r.refunded_at),
    refund_requested_by: r.refund_requested_by === null ? null : (names.get(r.refund_requested_by) ?? `№${r.refund_requested_by}`),
    refund_error: r.refund_error,
    refunded_amount: toRoubles(Number(r.refunded_amount)),
    provider_status_text: r.provider_status === null ? null : (PROVIDER_STATUS_TEXT[r.provider_status] ?? r.provider_status),
  }));
}

/** The owner's list: filtered, newest first, one page, with the sums of everything that matched. */
export async function listPayments(ctx: AppContext, query: AdminPaymentsQuery): Promise<AdminPaymentPage> {
  const page = Number(query.page ?? 1);
  const perPage = Number(query.per_page ?? ADMIN_PAYMENTS_PAGE_SIZE);
  const filter = filterOf(query);
  const [rows, sums] = await Promise.all([
    repo.listedPage(ctx.db, filter, perPage, (page - 1) * perPage),
    repo.listedTotals(ctx.db, filter),
  ]);
  const paid = Number(sums.paid ?? 0);
  const refunded = Number(sums.refunded ?? 0);
  const totals: AdminPaymentTotals = {
    count: Number(sums.count ?? 0),
    paid: toRoubles(paid),
    paid_count: Number(sums.paid_count ?? 0),
    refunded: toRoubles(refunded),
    refunded_count: Number(sums.refunded_count ?? 0),
    net: toRoubles(paid - refunded),
    bonus: toRoubles(Number(sums.bonus ?? 0)),
  };
  return { payments: await toAdmin(ctx, rows), page, per_page: perPage, total: totals.count, totals };
}

// ---------------------------------------------------------------- CSV

/** «150,50»: roubles with kopecks and a decimal comma, as Russian Excel reads numbers. */
const csvMoney = (kopecks: number) => `${Math.floor(kopecks / 100)},${String(kopecks % 100).padStart(2, '0')}`;

export function csvCell(value: string): string {
  // A cell Excel would run as a formula is kept as text.
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  // Quote, semicolon or line break: the cell quoted, its quotes doubled. (No regex with a bare
  // double quote: farm-studio read that as a string that never closes.)
  return [...'";\r\n'].some((c) => safe.includes(c)) ? `"${safe.replaceAll('"', '""')}"` : safe;
}

function dateFormatter(tz: string): (ms: number | null) => string {
  let f: Intl.DateTimeFormat;
  try {
    f = new Intl.DateTimeFormat('ru-RU', {
      timeZone: tz,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
      hourCycle: 'h23',
    });
  } catch {
    throw badRequest(ADMIN_PAYMENT_TEXTS.badTimezone, { code: 'invalid', field: 'tz' });
  }
  return (ms) => (ms === null ? '' : f.format(new Date(ms)).replace(',', ''));
}

export const CSV_HEADERS = [
  'Создан',
  'Оплачен',
  'Возвращён',
  'Игрок',
  'Способ оплаты',
  'Сумма, ₽',
  'Бонус, ₽',
  'Статус',
  'Статус у провайдера',
  'Номер на сайте',
  'Номер у провайдера',
];

/**
 * The filtered payments as CSV for Excel: UTF-8 with a BOM (so Excel does not read it as
 * Windows-1251), «;» between cells and a decimal comma (Russian Excel's list separator and
 * number format), dates in the owner's time zone, Russian headers; oldest first.
 */
export async function paymentsCsv(ctx: AppContext, query: AdminPaymentsCsvQuery): Promise<{ text: string; filename: string }> {
  const tz = query.tz ?? 'Europe/Moscow';
  const date = dateFormatter(tz);
  const rows = await repo.listedOldestFirst(ctx.db, filterOf(query), CSV_MAX_ROWS);
  const lines = [CSV_HEADERS.map(csvCell).join(';')];
  for (const r of rows) {
    lines.push(
      [
        date(Number(r.created_at)),
        date(ms(r.paid_at)),
        date(ms(r.refunded_at)),
        r.username,
        PAYMENT_PROVIDER_TEXT[r.provider as PaymentProvider] ?? r.provider,
        csvMoney(Number(r.amount)),
        csvMoney(Number(r.bonus)),
        PAYMENT_STATUS_TEXT[r.status as PaymentStatus] ?? r.status,
        r.provider_status ?? '',
        r.id,
        r.provider_payment_id ?? '',
      ]
        .map(csvCell)
        .join(';'),
    );
  }
  const day = new Intl.DateTimeFormat('sv-SE', { timeZone: tz }).format(new Date());
  return { text: `\uFEFF${lines.join('\r\n')}\r\n`, filename: `payments-${day}.csv` };
}

// ---------------------------------------------------------------- one payment

/** One payment as the owner's list shows it. */
export async function adminView(ctx: AppContext, id: string): Promise<AdminPayment> {
  const rows = await repo.listedPayment(ctx.db, id);
  if (rows.length === 0) throw notFound(PAYMENT_TEXTS.notFound, { code: 'payment_not_found' });
  return (await toAdmin(ctx, rows))[0]!;
}

/** One payment with every notification and provider answer kept about it. */
export async function paymentDetail(ctx: AppContext, service: PaymentsService, id: string): Promise<AdminPaymentDetail> {
  const row = await repo.findPayment(ctx.db, id);
  const [payment, events, user] = await Promise.all([
    adminView(ctx, id),
    repo.eventsOf(ctx.db, id, EVENTS_MAX),
    repo.balanceOf(ctx.db, row.user_id),
  ]);
  const balance = Number(user.balance);
  return {
    payment,
    // Bodies are stored without signatures; one an older version stored (an instance not yet
    // upgraded writes them still) loses them here.
    events: events.map((e) => ({
      id: e.id,
      kind: e.kind,
      ip: e.ip,
      outcome: e.outcome,
      body: e.body === null ? null : redactSignatures(e.body),
      created_at: Number(e.created_at),
    })),
    balance: toRoubles(balance),
    refund_amount: toRoubles(refundLeft(row) + bonusShare(row, refundLeft(row))),
    refund_left: toRoubles(refundLeft(row)),
    bonus_left: toRoubles(Number(row.bonus) - Number(row.bonus_refunded)),
    refund_max: toRoubles(refundMax(row, balance)),
    refund_block: refundBlock(await service.adapters(), row, balance, Date.now()),
  };
}

// ---------------------------------------------------------------- the player's card

/** The player's latest top-ups for the admin user card. */
export async function paymentsOfUser(ctx: AppContext, userId: number, limit = 50): Promise<NonNullable<UserCard['payments']>> {
  const rows = await repo.latestPaymentsOf(ctx.db, userId, limit);
  return rows.map((r) => ({
    id: r.id,
    amount: toRoubles(Number(r.amount)),
    status: r.status,
    provider: r.provider,
    created_at: new Date(Number(r.created_at)).toISOString(),
  }));
}
