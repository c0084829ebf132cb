import os from 'node:os';
import { parseArgs } from 'node:util';
import { loadConfig } from '../config.ts';
import { openDatabase } from '../db/index.ts';
import { migrateToLatest } from '../db/migrate.ts';
import { ClaimOwner } from '../lib/jobs/index.ts';
import { AuthMeDatabase } from '../modules/authme/authme.database.ts';
import { runImport } from '../modules/authme/authme.import.ts';
import * as repo from '../modules/authme/authme.repo.ts';
import { AuthMeSettingsDoc, resolveConfig } from '../modules/authme/authme.settings.ts';

/**
 * npm run import:authme [-- --yes]
 *
 * Imports AuthMe's accounts into the site, as Админ-панель → AuthMe → «Перенести» does: AuthMe's
 * database as the site is set up for it (the admin's settings, else AUTHME_DATABASE_URL,
 * AUTHME_TABLE, AUTHME_HASH). First a dry run (how many accounts, names and addresses taken,
 * names the site refuses); with --yes the import follows. Pages of 1000, each in one
 * transaction: stopped anywhere (Ctrl+C, a crash), the next run goes on where it stopped, and a
 * second run makes nothing twice. Runs beside a running site: whoever claims a run does it.
 */
const { values } = parseArgs({ options: { yes: { type: 'boolean', default: false }, help: { type: 'boolean', short: 'h' } } });
if (values.help) {
  console.log('npm run import:authme            пробный прогон: сколько аккаунтов, совпадения имён и почты, отклонённые имена');
  console.log('npm run import:authme -- --yes   пробный прогон, затем перенос');
  process.exit(0);
}

const config = loadConfig();
const database = openDatabase(config);
const controller = new AbortController();
process.once('SIGINT', () => {
  console.error('\nОстанавливаю после текущей страницы: следующий запуск продолжит с этого места.');
  controller.abort();
});
const number = (n: number) => n.toLocaleString('ru-RU');

try {
  await migrateToLatest(database);
  const { db } = database;
  const row = await db.selectFrom('settings').select('value').where('key', '=', AuthMeSettingsDoc.key).executeTakeFirst();
  const stored = AuthMeSettingsDoc.schema.safeParse(row ? JSON.parse(row.value) : {});
  const cfg = resolveConfig(config, stored.success ? stored.data : {});
  if (!cfg) {
    console.error('AuthMe не подключён: задайте AUTHME_DATABASE_URL или адрес в Админ-панели → AuthMe.');
    process.exitCode = 1;
  } else {
    const adb = new AuthMeDatabase(cfg);
    // A claim owner of its own: a running site's claims stay the site's.
    const deps = { db, claims: new ClaimOwner(`import-authme@${os.hostname()}:${process.pid}`) };
    const connect = async () => ({ cfg, adb });
    try {
      console.log(`AuthMe: ${cfg.kind}, таблица «${cfg.table}», алгоритм ${cfg.hashName}`);
      const total = await adb.count();
      for (const mode of values.yes ? (['dry', 'import'] as const) : (['dry'] as const)) {
        if (controller.signal.aborted) break;
        const waiting = await repo.activeImport(db);
        if (waiting && waiting.locked_until !== null && Number(waiting.locked_until) > Date.now()) {
          console.error(`Перенос №${waiting.id} уже идёт (на сайте или в другом запуске): дождитесь его конца.`);
          process.exitCode = 1;
          break;
        }
        if (waiting) console.log(`Продолжаю ${waiting.mode === 'dry' ? 'пробный прогон' : 'перенос'} №${waiting.id} с места остановки.`);
        else await repo.createImport(db, mode, null, total, Date.now());
        const started = performance.now();
        const id = await runImport(deps, connect, {
          signal: controller.signal,
          onPage: (run) => {
            const pct = run.total > 0 ? Math.min(100, Math.floor((run.processed / run.total) * 100)) : 100;
            process.stderr.write(
              `\r${run.mode === 'dry' ? 'Прогон' : 'Перенос'}: ${number(run.processed)} из ${number(run.total)} (${pct}%)   `,
            );
          },
        });
        process.stderr.write('\n');
        const run = id === null ? undefined : await repo.importById(db, id);
        if (!run) break;
        const seconds = ((performance.now() - started) / 1000).toFixed(1);
        console.log(
          [
            `${run.mode === 'dry' ? 'Пробный прогон' : 'Перенос'} №${run.id}: ${run.state === 'done' ? 'готово' : run.state} за ${seconds} с`,
            `  строк AuthMe: ${number(run.processed)} из ${number(run.total)}`,
            `  ${run.mode === 'dry' ? 'будет создано' : 'создано'} аккаунтов: ${number(run.created)}`,
            `  уже связаны с сайтом: ${number(run.linked)}`,
            `  имя занято аккаунтом сайта: ${number(run.name_collisions)}`,
            `  без почты (спросим при первом входе): ${number(run.without_email)}`,
            `  имя не подходит сайту: ${number(run.refused)}`,
            `  хеш нельзя проверить: ${number(run.broken_hashes)}`,
            ...(run.error ? [`  ошибка: ${run.error}`] : []),
          ].join('\n'),
        );
        const refused = await repo.refusals(db, run.id, 20);
        if (refused.length > 0) {
          console.log('  не перенесены (первые 20):');
          for (const r of refused) console.log(`    ${JSON.stringify(r.name)} — ${r.reason}`);
        }
        if (run.state !== 'done') {
          process.exitCode = 1;
          break;
        }
      }
      if (!values.yes && process.exitCode === undefined) console.log('Чтобы перенести аккаунты: npm run import:authme -- --yes');
    } finally {
      await adb.close();
    }
  }
} finally {
  await database.close();
}
