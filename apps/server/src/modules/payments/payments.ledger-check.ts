import type { Db } from '../../db/index.ts';
import { formatRub, paymentLedgerGroups, paymentsToCheck } from './payments.repo.ts';

const CREDITED = new Set(['succeeded', 'refunding', 'refunded']);
const REFUNDED = new Set(['refunding', 'refunded']);

/** `payment:{id}` (topup, bonus), `payment:{id}:refund:{n}` (a refund's debit), `…:back` (a refused refund put back). */
const REF = /^payment:([0-9a-f-]{36})(?::refund:(\d{1,9})(:back)?)?$/;

interface Rows {
  count: number;
  sum: number;
}

/**
 * For npm run check:ledger: a credited payment has exactly one `topup` row of its amount (and one
 * `bonus` row when it carries a bonus), any other payment none. Each refund attempt 1…n has one
 * `topup_refund` debit (its part and that part's bonus share); a refused attempt has its `…:back`
 * row of the same sum; together they take exactly what went back to the card and the bonus taken
 * back (plus the attempt in flight). No such row names a
 * payment that does not exist, or an attempt that was never started.
 */
export async function findPaymentLedgerMismatches(db: Db): Promise<string[]> {
  const problems: string[] = [];
  const grouped = await paymentLedgerGroups(db);
  const byRef = new Map<string, Rows>();
  for (const g of grouped) byRef.set(`${g.reason}|${g.ref ?? ''}`, { count: Number(g.n), sum: Number(g.total ?? 0) });
  const rowsOf = (reason: string, ref: string): Rows => byRef.get(`${reason}|${ref}`) ?? { count: 0, sum: 0 };

  const payments = await paymentsToCheck(db);
  const known = new Map(payments.map((p) => [p.id, Number(p.refund_attempts ?? 0)]));
  for (const p of payments) {
    const amount = Number(p.amount);
    const bonus = Number(p.bonus);
    const credited = CREDITED.has(p.status);
    const attempts = Number(p.refund_attempts ?? 0);
    const topup = rowsOf('topup', `payment:${p.id}`);
    const bonusRows = rowsOf('bonus', `payment:${p.id}`);
    const want = {
      topups: credited ? 1 : 0,
      topupSum: credited ? amount : 0,
      bonuses: credited && bonus > 0 ? 1 : 0,
      bonusSum: credited ? bonus : 0,
    };
    if (topup.count !== want.topups || topup.sum !== want.topupSum)
      problems.push(
        `Платёж ${p.id} (${p.status}): записей о пополнении ${topup.count} на ${formatRub(topup.sum)} вместо ${want.topups} на ${formatRub(want.topupSum)}`,
      );
    if (bonusRows.count !== want.bonuses || bonusRows.sum !== want.bonusSum)
      problems.push(
        `Платёж ${p.id} (${p.status}): записей о бонусе ${bonusRows.count} на ${formatRub(bonusRows.sum)} вместо ${want.bonuses} на ${formatRub(want.bonusSum)}`,
      );
    if (REFUNDED.has(p.status) && attempts < 1)
      problems.push(`Платёж ${p.id} (${p.status}): возврат не начат, но платёж помечен возвращённым`);
    // Partial refunds: each attempt debits once (its part and its bonus share); a refused one is
    // put back whole; the rest add up to what went back to the card plus the bonus taken back.
    let net = 0;
    for (let n = 1; n <= attempts; n++) {
      const debit = rowsOf('topup_refund', `payment:${p.id}:refund:${n}`);
      const back = rowsOf('topup_refund', `payment:${p.id}:refund:${n}:back`);
      if (debit.count !== 1 || debit.sum >= 0)
        problems.push(`Платёж ${p.id}, возврат №${n}: списаний ${debit.count} на ${formatRub(debit.sum)} вместо одного`);
      if (back.count > 1 || (back.count === 1 && back.sum !== -debit.sum))
        problems.push(`Платёж ${p.id}, возврат №${n}: возвращений на баланс ${back.count} на ${formatRub(back.sum)}`);
      if (n === attempts && p.status === 'refunding' && back.count !== 0)
        problems.push(`Платёж ${p.id}, возврат №${n}: идёт, но деньги уже возвращены на баланс`);
      net += debit.sum + back.sum;
    }
    const inFlight =
      p.status === 'refunding'
        ? Number(p.refund_now ?? amount - Number(p.refunded_amount)) + Number(p.refund_bonus_now ?? bonus - Number(p.bonus_refunded))
        : 0;
    const wantNet = -(Number(p.refunded_amount) + Number(p.bonus_refunded) + inFlight);
    if (net !== wantNet)
      problems.push(`Платёж ${p.id} (${p.status}): возвраты в журнале дают ${formatRub(net)} вместо ${formatRub(wantNet)}`);
  }

  for (const g of grouped) {
    const ref = g.ref ?? '';
    const m = REF.exec(ref);
    const attempts = m ? known.get(m[1]!) : undefined;
    const fits =
      m !== null &&
      attempts !== undefined &&
      (g.reason === 'topup_refund' ? m[2] !== undefined && Number(m[2]) >= 1 && Number(m[2]) <= attempts : m[2] === undefined);
    if (!fits)
      problems.push(`Записи журнала (${g.reason}, ${Number(g.n)} шт.) ссылаются на несуществующий платёж или возврат ${ref || '—'}`);
  }
  return problems;
}
