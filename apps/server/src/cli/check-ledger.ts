import { loadConfig } from '../config.ts';
import { openDatabase } from '../db/index.ts';
import { migrateToLatest } from '../db/migrate.ts';
import { ledgerReport } from './ledger-report.ts';

/**
 * npm run check:ledger
 * Checks that every user's balance equals the sum of their ledger rows, and that every purchase and
 * refund of the shop has exactly one ledger row. Prints a report; exits with 1 on any mismatch.
 */
const database = openDatabase(loadConfig());
let failed: boolean;
try {
  await migrateToLatest(database);
  const report = await ledgerReport(database.db);
  for (const line of report.lines) console.log(line);
  failed = report.failed;
} catch (err) {
  console.error(`Не удалось проверить журнал: ${(err as Error).message}`);
  failed = true;
} finally {
  await database.close();
}
process.exit(failed ? 1 : 0);
