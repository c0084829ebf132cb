import { sql } from 'kysely';
import type { Db } from '../../db/index.ts';
import { formatRub } from './payments.service.ts';

const CREDITED = new Set(['succeeded', 'refunding', 'refunded']);
const REFUNDED = new Set(['refunding', 'refunded']);

/**
 * For npm run check:ledger: a credited payment has exactly one `topup` row of its amount (and one
 * `bonus` row when it carries a bonus), a refunded one exactly one `topup_refund` row taking back
 * both; any other payment none; and no such row names a payment that does not exist.
 */
export async function findPaymentLedgerMismatches(db: Db): Promise<string[]> {
  const problems: string[] = [];
  const rows = await db
    .selectFrom('payments')
    .leftJoin('ledger', (j) => j.on('ledger.ref', '=', sql<string>`'payment:' || payments.id`).on('ledger.reason', 'in', ['topup', 'bonus', 'topup_refund']))
    .select([
      'payments.id',
      'payments.status',
      'payments.amount',
      'payments.bonus',
      (eb) => eb.fn.sum<number>(eb.case().when('ledger.reason', '=', 'topup').then(1).else(0).end()).as('topups'),
      (eb) => eb.fn.sum<number>(eb.case().when('ledger.reason', '=', 'topup').then(eb.ref('ledger.amount')).else(0).end()).as('topup_sum'),
      (eb) => eb.fn.sum<number>(eb.case().when('ledger.reason', '=', 'bonus').then(1).else(0).end()).as('bonuses'),
      (eb) => eb.fn.sum<number>(eb.case().when('ledger.reason', '=', 'bonus').then(eb.ref('ledger.amount')).else(0).end()).as('bonus_sum'),
      (eb) => eb.fn.sum<number>(eb.case().when('ledger.reason', '=', 'topup_refund').then(1).else(0).end()).as('refunds'),
      (eb) => eb.fn.sum<number>(eb.case().when('ledger.reason', '=', 'topup_refund').then(eb.ref('ledger.amount')).else(0).end()).as('refund_sum'),
    ])
    .groupBy(['payments.id', 'payments.status', 'payments.amount', 'payments.bonus'])
    .execute();
  for (const r of rows) {
    const amount = Number(r.amount);
    const bonus = Number(r.bonus);
    const credited = CREDITED.has(r.status);
    const refunded = REFUNDED.has(r.status);
    const want = { topups: credited ? 1 : 0, topupSum: credited ? amount : 0, bonuses: credited && bonus > 0 ? 1 : 0, bonusSum: credited ? bonus : 0, refunds: refunded ? 1 : 0, refundSum: refunded ? -(amount + bonus) : 0 };
    const got = { topups: Number(r.topups ?? 0), topupSum: Number(r.topup_sum ?? 0), bonuses: Number(r.bonuses ?? 0), bonusSum: Number(r.bonus_sum ?? 0), refunds: Number(r.refunds ?? 0), refundSum: Number(r.refund_sum ?? 0) };
    if (got.topups !== want.topups || got.topupSum !== want.topupSum) problems.push(`Платёж ${r.id} (${r.status}): записей о пополнении ${got.topups} на ${formatRub(got.topupSum)} вместо ${want.topups} на ${formatRub(want.topupSum)}`);
    if (got.bonuses !== want.bonuses || got.bonusSum !== want.bonusSum) problems.push(`Платёж ${r.id} (${r.status}): записей о бонусе ${got.bonuses} на ${formatRub(got.bonusSum)} вместо ${want.bonuses} на ${formatRub(want.bonusSum)}`);
    if (got.refunds !== want.refunds || got.refundSum !== want.refundSum) problems.push(`Платёж ${r.id} (${r.status}): записей о возврате ${got.refunds} на ${formatRub(got.refundSum)} вместо ${want.refunds} на ${formatRub(want.refundSum)}`);
  }
  const orphans = await db
    .selectFrom('ledger')
    .leftJoin('payments', (j) => j.on(sql<string>`'payment:' || payments.id`, '=', sql.ref('ledger.ref')))
    .select(['ledger.id', 'ledger.reason', 'ledger.ref'])
    .where('ledger.reason', 'in', ['topup', 'bonus', 'topup_refund'])
    .where('payments.id', 'is', null)
    .execute();
  for (const o of orphans) problems.push(`Запись журнала №${o.id} (${o.reason}) ссылается на несуществующий платёж ${o.ref ?? '—'}`);
  return problems;
}
