import { parseArgs } from 'node:util';
import { loadConfig } from '../config.ts';
import { BackupError } from '../lib/backup.ts';
import { privateUmask } from '../base/private-files.ts';
import { restoreBackup } from './restore-backup.ts';

/**
 * npm run restore -- --from FILE [--accept-mismatches]
 * Restores a backup of `npm run backup` into an empty data directory (SQLite) or an empty
 * database (DATABASE_URL), then brings it to the current migrations and runs the checks of
 * check:ledger. A target that already holds data is refused. Stop the site first.
 */
privateUmask();
let values: { from?: string; 'accept-mismatches'?: boolean } = {};
try {
  values = parseArgs({ options: { from: { type: 'string' }, 'accept-mismatches': { type: 'boolean' } } }).values;
} catch (err) {
  console.error((err as Error).message);
}
if (!values.from) {
  console.error('Укажите файл: npm run restore -- --from ПУТЬ\nUsage: npm run restore -- --from FILE');
  process.exit(2);
}
try {
  const result = await restoreBackup(loadConfig(), values.from, {
    acceptMismatches: values['accept-mismatches'] ?? false,
    log: (line) => console.log(line),
  });
  process.exit(result.ok ? 0 : 1);
} catch (err) {
  console.error(err instanceof BackupError ? err.message : `Не удалось восстановить / Restore failed: ${(err as Error).message}`);
  process.exit(1);
}
