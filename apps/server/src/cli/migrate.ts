import { loadConfig } from '../config.ts';
import { openDatabase } from '../db/index.ts';
import { migrateToLatest, pendingMigrations } from '../db/migrate.ts';

/**
 * npm run migrate
 * Applies every pending migration (forward only; the site also does this when it starts) and
 * says which ones ran. On PostgreSQL instances starting together wait for each other's run.
 */
const config = loadConfig();
const database = openDatabase(config);
let code = 0;
try {
  const pending = await pendingMigrations(database.db);
  if (pending.length === 0) console.log('Миграции: база уже в актуальном состоянии.');
  else {
    await migrateToLatest(database);
    console.log(`Миграции применены (${pending.length}): ${pending.join(', ')}.`);
  }
} catch (err) {
  console.error(`Миграции не применены: ${err instanceof Error ? err.message : String(err)}`);
  code = 1;
} finally {
  await database.close();
}
process.exit(code);
