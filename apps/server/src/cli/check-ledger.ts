import { loadConfig } from '../config.ts';
import { openDatabase } from '../db/index.ts';
import { migrateToLatest } from '../db/migrate.ts';
import { toRoubles } from '../lib/money.ts';
import { findLedgerMismatches } from '../modules/ledger/ledger.service.ts';
import { findPaymentLedgerMismatches } from '../modules/payments/payments.ledger-check.ts';
import { findShopLedgerMismatches } from '../modules/shop/shop.service.ts';

/**
 * npm run check:ledger
 * Checks that every user's balance equals the sum of their ledger rows, that every purchase and
 * refund of the shop has exactly one ledger row, and that every top-up payment credited (and
 * refunded) exactly once. Prints a report; exits with 1 on any mismatch.
 */
const rub = new Intl.NumberFormat('ru-RU', { minimumFractionDigits: 2, maximumFractionDigits: 2 });
const money = (kopecks: number) => `${rub.format(toRoubles(kopecks))}\u00a0₽`;

const database = openDatabase(loadConfig());
let failed: boolean;
try {
  await migrateToLatest(database);
  const { db } = database;
  const users = Number((await db.selectFrom('users').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n);
  const rows = Number((await db.selectFrom('ledger').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n);
  const balances = await findLedgerMismatches(db);
  const shop = await findShopLedgerMismatches(db);
  const payments = await findPaymentLedgerMismatches(db);

  console.log(`Проверено пользователей: ${users}, записей в журнале баланса: ${rows}.`);
  if (balances.length === 0) console.log('Балансы: все совпадают с суммой записей журнала.');
  else {
    console.log(`Балансы: расхождений — ${balances.length}:`);
    for (const m of balances) {
      console.log(`  ${m.username} (id ${m.id}): баланс ${money(m.balance)}, сумма по журналу ${money(m.ledger)}, разница ${money(m.balance - m.ledger)}`);
    }
  }
  if (shop.length === 0) console.log('Магазин: у каждой покупки и каждого возврата ровно одна запись в журнале.');
  else {
    console.log(`Магазин: расхождений — ${shop.length}:`);
    for (const line of shop) console.log(`  ${line}`);
  }
  if (payments.length === 0) console.log('Пополнения: у каждого оплаченного платежа ровно одна запись о пополнении (и бонусе), у возвращённого — одна о возврате.');
  else {
    console.log(`Пополнения: расхождений — ${payments.length}:`);
    for (const line of payments) console.log(`  ${line}`);
  }
  failed = balances.length > 0 || shop.length > 0 || payments.length > 0;
  console.log(failed ? 'Итог: найдены расхождения.' : 'Итог: расхождений нет.');
} catch (err) {
  console.error(`Не удалось проверить журнал: ${(err as Error).message}`);
  failed = true;
} finally {
  await database.close();
}
process.exit(failed ? 1 : 0);
