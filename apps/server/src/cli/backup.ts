import { parseArgs } from 'node:util';
import { loadConfig } from '../config.ts';
import { BackupError, makeBackup } from '../lib/backup.ts';
import { privateUmask } from '../base/private-files.ts';

/**
 * npm run backup -- --out FILE
 * A consistent copy of the site's database while the site keeps running (lib/backup.ts):
 * SQLite through its online backup, PostgreSQL through pg_dump. The file is private (0600).
 */
privateUmask();
let out: string | undefined;
try {
  out = parseArgs({ options: { out: { type: 'string' } } }).values.out;
} catch (err) {
  console.error((err as Error).message);
}
if (!out) {
  console.error('Укажите файл: npm run backup -- --out ПУТЬ\nUsage: npm run backup -- --out FILE');
  process.exit(2);
}
try {
  const started = Date.now();
  const { kind, bytes } = await makeBackup(loadConfig(), out);
  const mb = (bytes / 1_048_576).toLocaleString('ru-RU', { maximumFractionDigits: 1 });
  console.log(`Резервная копия ${kind === 'pg' ? 'PostgreSQL' : 'SQLite'} записана: ${out} (${mb} МБ, ${Date.now() - started} мс).`);
} catch (err) {
  console.error(err instanceof BackupError ? err.message : `Не удалось сделать резервную копию / Backup failed: ${(err as Error).message}`);
  process.exit(1);
}
