import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RESTORE_TEXTS, restoreBackup } from '../cli/restore-backup.ts';
import { loadConfig } from '../config.ts';
import { loadSqlite, openDatabase } from '../db/index.ts';
import { createPgDatabase, createTestApp, dbKinds, loginAs, seedUser, type TestApp } from '../test/test-app.ts';
import { BACKUP_TEXTS, BackupError, backupFileName, backupJob, detectBackupKind, makeBackup, pruneBackups } from './backup.ts';
import { createMailer } from './mailer.ts';
import { VanillaRconServer } from '../../../../testing/rcon/vanilla-server.ts';
import { SETTLE_TEXTS } from '../cli/restore-settle.ts';
import { buildApp } from '../app.ts';
import { drainDeliveries } from '../modules/deliveries/deliveries.worker.ts';
import { addServer } from '../modules/shop/shop.test-helpers.ts';

const mode = (f: string) => fs.statSync(f).mode & 0o777;
const tmpDir = () => fs.mkdtempSync(path.join(os.tmpdir(), 'kubik-backup-'));
const quiet = { acceptMismatches: false, log: () => {} };

async function countUsers(databaseUrl: string | undefined, sqlitePath: string): Promise<number> {
  const h = openDatabase({ databaseUrl, sqlitePath });
  try {
    const r = await h.db
      .selectFrom('users')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    return Number(r.n);
  } finally {
    await h.close();
  }
}

describe.each(dbKinds)('backup and restore on %s', (kind) => {
  let t: TestApp;
  const dirs: string[] = [];
  const dropDbs: (() => Promise<void>)[] = [];
  beforeAll(async () => {
    t = await createTestApp(kind, { workers: false, rateLimits: { enabled: false } });
    for (let i = 0; i < 5; i++) await seedUser(t, `Player${i}`, { balanceKopecks: 10_000 + i });
  });
  afterAll(async () => {
    await t.close();
    for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
    for (const drop of dropDbs) await drop();
  });
  const config = () => t.app.ctx.config;
  /** An empty target of the same kind: a fresh data directory, or a fresh PostgreSQL database. */
  async function emptyTarget(): Promise<{ databaseUrl: string | undefined; sqlitePath: string }> {
    const dir = tmpDir();
    dirs.push(dir);
    if (kind === 'sqlite') return { databaseUrl: undefined, sqlitePath: path.join(dir, 'data', 'kubik.sqlite') };
    const db = await createPgDatabase();
    dropDbs.push(db.drop);
    return { databaseUrl: db.url, sqlitePath: '' };
  }

  it('copies the database while the site keeps writing, into a private file, and restores it into an empty target with checks', async () => {
    const out = path.join(tmpDir(), 'nested', 'site.backup');
    dirs.push(path.dirname(path.dirname(out)));
    // Registrations keep writing during the copy; the copy is one consistent snapshot of some moment.
    let writing = true;
    let written = 0;
    const writer = (async () => {
      while (writing) {
        await seedUser(t, `Writer${written++}`);
      }
    })();
    const { kind: madeKind, bytes } = await makeBackup(config(), out);
    writing = false;
    await writer;
    expect(madeKind).toBe(kind);
    expect(bytes).toBeGreaterThan(0);
    expect(mode(out)).toBe(0o600);
    expect(detectBackupKind(out)).toBe(kind);
    expect(fs.readdirSync(path.dirname(out))).toEqual(['site.backup']);

    const target = await emptyTarget();
    const lines: string[] = [];
    const result = await restoreBackup(target, out, { acceptMismatches: false, log: (l) => lines.push(l) });
    expect(result.ok).toBe(true);
    expect(lines.join('\n')).toContain('Итог: расхождений нет.');
    const restored = await countUsers(target.databaseUrl, target.sqlitePath);
    expect(restored).toBeGreaterThanOrEqual(5);
    expect(restored).toBeLessThanOrEqual(5 + written);
    if (kind === 'sqlite') {
      expect(mode(target.sqlitePath)).toBe(0o600);
      expect(mode(path.dirname(target.sqlitePath))).toBe(0o700);
    }
    const h = openDatabase(target);
    const player = await h.db.selectFrom('users').select('balance').where('username', '=', 'Player3').executeTakeFirstOrThrow();
    await h.close();
    expect(player.balance).toBe(10_003);

    // The target now holds data: a second restore is refused and changes nothing.
    const again = await restoreBackup(target, out, quiet).catch((e: unknown) => e);
    expect(again).toBeInstanceOf(BackupError);
    expect((again as Error).message).toMatch(kind === 'sqlite' ? /уже существует/ : /уже есть таблицы/);
    expect(await countUsers(target.databaseUrl, target.sqlitePath)).toBe(restored);
  });

  it('refuses to overwrite a file, a file that is not a backup, and a backup of the other database', async () => {
    const dir = tmpDir();
    dirs.push(dir);
    const existing = path.join(dir, 'exists');
    fs.writeFileSync(existing, 'x');
    await expect(makeBackup(config(), existing)).rejects.toThrow(BACKUP_TEXTS.exists(existing));
    const target = await emptyTarget();
    await expect(restoreBackup(target, existing, quiet)).rejects.toThrow(RESTORE_TEXTS.unknown(existing));
    await expect(restoreBackup(target, path.join(dir, 'nope'), quiet)).rejects.toThrow(/Нет файла/);
    const other =
      kind === 'sqlite'
        ? { databaseUrl: 'postgres://nobody@127.0.0.1:1/x', sqlitePath: '' }
        : { databaseUrl: undefined, sqlitePath: path.join(dir, 'k.sqlite') };
    const out = path.join(dir, 'b');
    await makeBackup(config(), out);
    await expect(restoreBackup(other, out, quiet)).rejects.toThrow(/сайт настроен на/);
  });

  it('the site makes its own backups once per period across instances and keeps the newest BACKUP_KEEP', async () => {
    const dir = path.join(tmpDir(), 'backups');
    dirs.push(path.dirname(dir));
    const job = backupJob({ ...config(), backup: { dir, keep: 2, intervalMs: 86_400_000 } }, { info: () => {} });
    // Older backups already there (and a file of someone else's that is left alone).
    fs.mkdirSync(dir, { mode: 0o700 });
    for (const name of ['kubik-20200101-000000.sqlite', 'kubik-20200102-000000.sqlite', 'notes.txt'])
      fs.writeFileSync(path.join(dir, name), 'old');
    expect(await t.app.ctx.schedule.runIfDue(job)).toBe('ran');
    expect(await t.app.ctx.schedule.runIfDue(job)).toBe('not_due');
    const names = fs.readdirSync(dir).sort();
    expect(names).toHaveLength(3);
    expect(names).toContain('kubik-20200102-000000.sqlite');
    expect(names).toContain('notes.txt');
    const fresh = names.find((n) => n.startsWith('kubik-2') && !n.startsWith('kubik-2020'))!;
    expect(fresh).toMatch(kind === 'pg' ? /\.pgdump$/ : /\.sqlite$/);
    expect(mode(path.join(dir, fresh))).toBe(0o600);
    expect(mode(dir)).toBe(0o700);
  });

  it('a backup taken mid-delivery restores those deliveries as unknown (check before resending): nothing is given twice', async () => {
    // A slow game: each command takes 600 ms, so the backup catches one on the wire and two queued.
    const rcon = new VanillaRconServer({ password: 'rcon-secret', online: ['Player0'], delayMs: 600 });
    await rcon.start(0);
    try {
      await seedUser(t, 'Boss', { admin: true });
      const boss = await loginAs(t, 'Boss');
      const player = await loginAs(t, 'Player0');
      const serverId = await addServer(t, { name: 'Выдача', rcon_host: '127.0.0.1', rcon_port: rcon.port, rcon_password: 'rcon-secret' });
      const item = await t.app.inject({
        method: 'POST',
        url: '/api/shop/admin/create',
        headers: { authorization: `Bearer ${boss}` },
        payload: { name: 'Алмаз', price: 0.5, count: 100, icon: '/i.png', item_id_minecraft: 'diamond', server_id: serverId },
      });
      expect(item.statusCode, item.body).toBe(201);
      for (let i = 0; i < 3; i++) {
        const res = await t.app.inject({
          method: 'POST',
          url: '/api/shop/buy',
          headers: { authorization: `Bearer ${player}` },
          payload: { shop_id: item.json<{ id: number }>().id, quantity: 1 },
        });
        expect(res.statusCode, res.body).toBe(200);
      }
      const opts = { intervalMs: 1000, timeoutMs: 10_000 };
      const live = drainDeliveries(t.handle.db, opts, t.app.log);
      const onTheWire = async () =>
        (await t.handle.db.selectFrom('deliveries').select('id').where('state', '=', 'sent').where('server_id', '=', serverId).execute())
          .length;
      const deadline = Date.now() + 10_000;
      while ((await onTheWire()) === 0) {
        if (Date.now() > deadline) throw new Error('no delivery went on the wire');
        await new Promise((r) => setTimeout(r, 20));
      }
      const out = path.join(tmpDir(), 'mid-delivery.backup');
      dirs.push(path.dirname(out));
      await makeBackup(config(), out);
      // The live site finishes: every order given once.
      await live;
      expect(rcon.commands).toHaveLength(3);

      const target = await emptyTarget();
      const lines: string[] = [];
      expect((await restoreBackup(target, out, { acceptMismatches: false, log: (l) => lines.push(l) })).ok).toBe(true);
      const summary = lines.find((l) => l.startsWith('Доставки в пути'));
      expect(summary).toBeDefined();
      const counted = Number(/: (\d+) —/.exec(summary!)![1]);
      expect(counted).toBeGreaterThanOrEqual(1);
      expect(counted).toBeLessThanOrEqual(3);
      const restored = openDatabase(target);
      try {
        const states = await restored.db
          .selectFrom('deliveries')
          .select(['state', 'last_error', 'locked_until'])
          .where('server_id', '=', serverId)
          .execute();
        expect(states).toHaveLength(3);
        const unknown = states.filter((d) => d.state === 'unknown');
        expect(unknown).toHaveLength(counted);
        for (const d of unknown) expect(d).toMatchObject({ last_error: SETTLE_TEXTS.deliveryNote, locked_until: null });
        expect(states.every((d) => d.state === 'unknown' || d.state === 'done')).toBe(true);
        // The restored site's queue runs: it sends nothing again by itself.
        await drainDeliveries(restored.db, opts, t.app.log);
        expect(rcon.commands).toHaveLength(3);
        // The admin sees them: the deliveries list filtered by «unknown», each with the note.
        const dataDir = tmpDir();
        dirs.push(dataDir);
        const app = await buildApp(
          loadConfig({}, { ...target, dataDir, logLevel: 'silent', workers: false, publicUrl: 'http://kubik.test' }),
          { database: restored, mailer: createMailer({ ...t.app.ctx.config, smtpUrl: undefined, dataDir }) },
        );
        try {
          const list = await app.inject({
            method: 'GET',
            url: '/api/admin/deliveries?state=unknown',
            headers: { authorization: `Bearer ${boss}` },
          });
          expect(list.statusCode, list.body).toBe(200);
          const shown = list.json<{ state: string; last_error: string | null }[]>();
          expect(shown).toHaveLength(counted);
          for (const d of shown) expect(d.last_error).toBe(SETTLE_TEXTS.deliveryNote);
        } finally {
          await app.close();
        }
      } finally {
        await restored.close();
      }
    } finally {
      await rcon.stop();
    }
  }, 60_000);

  it.runIf(kind === 'sqlite')('refuses a backup whose ledger disagrees unless told to accept it, leaving the target empty', async () => {
    const dir = tmpDir();
    dirs.push(dir);
    const out = path.join(dir, 'b.sqlite');
    await makeBackup(config(), out);
    const raw = new (loadSqlite())(out);
    raw.prepare('update users set balance = balance + 100 where username = ?').run('Player1');
    raw.close();
    const target = await emptyTarget();
    const lines: string[] = [];
    expect((await restoreBackup(target, out, { acceptMismatches: false, log: (l) => lines.push(l) })).ok).toBe(false);
    expect(lines.join('\n')).toMatch(/Player1 \(id \d+\): баланс 101,01\u00a0₽, сумма по журналу 100,01\u00a0₽/);
    expect(lines.join('\n')).toContain(RESTORE_TEXTS.checksFailed);
    expect(fs.readdirSync(path.dirname(target.sqlitePath))).toEqual([]);
    expect((await restoreBackup(target, out, { acceptMismatches: true, log: () => {} })).ok).toBe(false);
    expect(fs.existsSync(target.sqlitePath)).toBe(true);
  });
});

describe('backup files and data files', () => {
  it('says in Russian and English what to install when pg_dump is missing', async () => {
    const dir = tmpDir();
    const saved = process.env.PATH;
    process.env.PATH = dir;
    try {
      const err = await makeBackup(
        { databaseUrl: 'postgres://kubik:secret@127.0.0.1:5432/kubik', sqlitePath: '' },
        path.join(dir, 'x.pgdump'),
      ).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(BackupError);
      expect((err as Error).message).toBe(BACKUP_TEXTS.pgDumpMissing('pg_dump'));
      expect((err as Error).message).toMatch(/Не найдена программа pg_dump[\s\S]*pg_dump not found/);
      expect(fs.readdirSync(dir)).toEqual([]);
    } finally {
      process.env.PATH = saved;
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('names backups by UTC time and prunes only its own names', () => {
    expect(backupFileName('sqlite', new Date('2026-11-23T04:15:09.123Z'))).toBe('kubik-20261123-041509.sqlite');
    expect(backupFileName('pg', new Date('2026-11-23T04:15:09Z'))).toBe('kubik-20261123-041509.pgdump');
    const dir = tmpDir();
    for (const n of ['kubik-20260101-000000.sqlite', 'kubik-20260102-000000.pgdump', 'kubik-20260103-000000.sqlite', 'other.sqlite'])
      fs.writeFileSync(path.join(dir, n), '');
    expect(pruneBackups(dir, 1)).toEqual(['kubik-20260101-000000.sqlite', 'kubik-20260102-000000.pgdump']);
    expect(fs.readdirSync(dir).sort()).toEqual(['kubik-20260103-000000.sqlite', 'other.sqlite']);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('creates the SQLite database, its journal, mail/ and downloads/ private to the site user', async () => {
    const t = await createTestApp('sqlite', { workers: false, rateLimits: { enabled: false } });
    try {
      await seedUser(t, 'Private');
      await loginAs(t, 'Private');
      const db = t.app.ctx.config.sqlitePath;
      expect(mode(db)).toBe(0o600);
      expect(mode(`${db}-wal`)).toBe(0o600);
      expect(mode(`${db}-shm`)).toBe(0o600);
      expect(mode(path.join(t.dataDir, 'downloads'))).toBe(0o700);
      // A mail/ folder left 0755 by an older version is narrowed with the next letter.
      fs.mkdirSync(path.join(t.dataDir, 'mail'), { mode: 0o755 });
      fs.chmodSync(path.join(t.dataDir, 'mail'), 0o755);
      const mailer = createMailer({ ...t.app.ctx.config, smtpUrl: undefined });
      await mailer.send({ to: 'a@example.com', subject: 's', text: 't', html: '<p>t</p>' });
      mailer.close();
      const mail = path.join(t.dataDir, 'mail');
      expect(mode(mail)).toBe(0o700);
      for (const f of fs.readdirSync(mail)) expect(mode(path.join(mail, f))).toBe(0o600);
    } finally {
      await t.close();
    }
  });

  // Four node processes with tsx: slow on a loaded machine.
  it('npm run backup and npm run restore work from the command line', async () => {
    const dir = tmpDir();
    try {
      const src = path.join(dir, 'site');
      const dst = path.join(dir, 'restored');
      const cli = (name: string, args: string[], dataDir: string) =>
        spawnSync(process.execPath, ['--import', 'tsx', path.join(import.meta.dirname, `../cli/${name}.ts`), ...args], {
          env: { ...process.env, DATA_DIR: dataDir, DATABASE_URL: '' },
          encoding: 'utf8',
        });
      const cfg = loadConfig({ DATA_DIR: src });
      const h = openDatabase(cfg);
      await h.close();
      const usage = cli('backup', [], src);
      expect(usage.status).toBe(2);
      expect(usage.stderr).toContain('npm run backup -- --out');
      const made = cli('backup', ['--out', path.join(dir, 'b.sqlite')], src);
      expect(made.stderr).toBe('');
      expect(made.stdout).toMatch(/^Резервная копия SQLite записана: /);
      const restored = cli('restore', ['--from', path.join(dir, 'b.sqlite')], dst);
      expect(restored.stdout, restored.stderr).toContain('Восстановлено');
      expect(restored.status).toBe(0);
      const refused = cli('restore', ['--from', path.join(dir, 'b.sqlite')], dst);
      expect(refused.status).toBe(1);
      expect(refused.stderr).toMatch(/уже существует[\s\S]*already exists/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
