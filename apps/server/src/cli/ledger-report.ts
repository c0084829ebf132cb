import type { Db } from '../db/index.ts';
import { toRoubles } from '../lib/money.ts';
import { findLedgerMismatches } from '../modules/ledger/ledger.service.ts';
import { findPaymentLedgerMismatches } from '../modules/payments/payments.ledger-check.ts';
import { findShopLedgerMismatches } from '../modules/shop/shop.service.ts';

const rub = new Intl.NumberFormat('ru-RU', { minimumFractionDigits: 2, maximumFractionDigits: 2 });
const money = (kopecks: number) => `${rub.format(toRoubles(kopecks))}\u00a0₽`;

/**
 * The checks of `npm run check:ledger` (also run by `npm run restore`): every user's balance
 * equals the sum of their ledger rows, every purchase and refund of the shop has exactly
 * one ledger row, and every top-up payment credited (and refunded) exactly once. Returns the report's lines and whether anything disagreed.
 */
export async function ledgerReport(db: Db): Promise<{ lines: string[]; failed: boolean }> {
  const lines: string[] = [];
  const users = Number(
    (
      await db
        .selectFrom('users')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  );
  const rows = Number(
    (
      await db
        .selectFrom('ledger')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  );
  const balances = await findLedgerMismatches(db);
  const shop = await findShopLedgerMismatches(db);
  const payments = await findPaymentLedgerMismatches(db);

  lines.push(`Проверено пользователей: ${users}, записей в журнале баланса: ${rows}.`);
  if (balances.length === 0) lines.push('Балансы: все совпадают с суммой записей журнала.');
  else {
    lines.push(`Балансы: расхождений — ${balances.length}:`);
    for (const m of balances) {
      lines.push(
        `  ${m.username} (id ${m.id}): баланс ${money(m.balance)}, сумма по журналу ${money(m.ledger)}, разница ${money(m.balance - m.ledger)}`,
      );
    }
  }
  if (shop.length === 0) lines.push('Магазин: у каждой покупки и каждого возврата ровно одна запись в журнале.');
  else {
    lines.push(`Магазин: расхождений — ${shop.length}:`);
    for (const line of shop) lines.push(`  ${line}`);
  }
  if (payments.length === 0)
    lines.push(
      'Пополнения: у каждого оплаченного платежа ровно одна запись о пополнении (и бонусе), у каждого возврата — одно списание, у отклонённого платёжной системой — и одно возвращение на баланс.',
    );
  else {
    lines.push(`Пополнения: расхождений — ${payments.length}:`);
    for (const line of payments) lines.push(`  ${line}`);
  }
  const failed = balances.length > 0 || shop.length > 0 || payments.length > 0;
  lines.push(failed ? 'Итог: найдены расхождения.' : 'Итог: расхождений нет.');
  return { lines, failed };
}
