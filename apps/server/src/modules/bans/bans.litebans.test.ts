import type { PublicBansPage } from '@kubik/contract';
import type { Connection } from 'mysql2/promise';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  advancedBanMysqlTables,
  liteBansInsert,
  liteBansMysqlTables,
  liteBansPostgresTables,
  type LiteBansKind,
  type LiteBansPgFlags,
  type LiteBansRow,
} from '../../../../../testing/litebans/tables.ts';
import { startMariaDb, type MariaDb } from '../../../../../testing/mariadb.ts';
import { asUser, createTestApp, dbKinds, errorOf, loginAs, seedUser, type TestApp } from '../../test/test-app.ts';

/*
 * The public list with a game plugin's punishments: LiteBans' tables made as LiteBans makes them
 * on a real MariaDB (Debian's packages, started here) and on TEST_DATABASE_URL's PostgreSQL,
 * AdvancedBan's on MariaDB; the site connects as a user that may only SELECT.
 */

const PASSWORD = 'kubik-pass-42';
const DAY = 86_400_000;
const uuidOf = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

let maria: MariaDb;
beforeAll(async () => {
  maria = await startMariaDb();
}, 120_000);
afterAll(async () => {
  await maria?.stop();
});

interface PluginDbHandle {
  url: string;
  insert(kind: LiteBansKind, rows: LiteBansRow[]): Promise<void>;
  exec(sql: string, params?: unknown[]): Promise<void>;
  close(): Promise<void>;
}

async function mariaLiteBans(tables: string[]): Promise<PluginDbHandle> {
  const db = await maria.createDatabase();
  const conn: Connection = await maria.admin(db.name);
  for (const sql of tables) await conn.query(sql);
  const reader = await maria.createUser(db.name, { grants: 'SELECT' });
  return {
    url: reader.url,
    async insert(kind, rows) {
      const { sql, params } = liteBansInsert('litebans_', kind, rows);
      await conn.query(sql, params);
    },
    async exec(sql, params = []) {
      await conn.query(sql, params);
    },
    async close() {
      await conn.end();
      await db.drop();
    },
  };
}

async function postgresLiteBans(flags: LiteBansPgFlags): Promise<PluginDbHandle> {
  const base = process.env.TEST_DATABASE_URL!;
  const name = `kubik_litebans_${process.pid}_${Math.random().toString(36).slice(2, 10)}`;
  const admin = new pg.Client({ connectionString: base });
  await admin.connect();
  await admin.query(`create database ${name}`);
  const url = new URL(base);
  url.pathname = `/${name}`;
  const client = new pg.Client({ connectionString: url.toString() });
  await client.connect();
  for (const sql of liteBansPostgresTables('litebans_', flags)) await client.query(sql);
  const numbered = (sql: string) => {
    let i = 0;
    return sql.replace(/\?/g, () => `$${++i}`);
  };
  return {
    url: url.toString(),
    async insert(kind, rows) {
      const { sql, params } = liteBansInsert('litebans_', kind, rows, 'postgres');
      await client.query(sql, params);
    },
    async exec(sql, params = []) {
      await client.query(numbered(sql), params);
    },
    async close() {
      await client.end();
      await admin.query(`drop database if exists ${name} with (force)`);
      await admin.end();
    },
  };
}

describe.each(dbKinds)('LiteBans and AdvancedBan on /bans, the site on %s', (kind) => {
  let t: TestApp;
  let owner: string;
  let staff: string;
  const plugins: PluginDbHandle[] = [];

  beforeAll(async () => {
    t = await createTestApp(kind, { rateLimits: { enabled: false } });
    await seedUser(t, 'Owner', { admin: true, password: PASSWORD });
    const staffId = await seedUser(t, 'Moder', { password: PASSWORD });
    owner = await loginAs(t, 'Owner', PASSWORD);
    staff = await loginAs(t, 'Moder', PASSWORD);
    const role = await t.app.inject(
      asUser(owner, { method: 'POST', url: '/api/admin/roles', payload: { name: 'Модератор', permissions: ['bans'] } }),
    );
    expect(role.statusCode, role.body).toBe(200);
    const set = await t.app.inject(
      asUser(owner, { method: 'PUT', url: `/api/admin/users/${staffId}/role`, payload: { role_id: role.json<{ id: number }>().id } }),
    );
    expect(set.statusCode, set.body).toBe(200);
  });
  afterAll(async () => {
    await t?.close();
    for (const p of plugins) await p.close();
  });

  const connect = (token: string, body: object) =>
    t.app.inject(asUser(token, { method: 'PUT', url: '/api/admin/bans/source', payload: body }));
  const list = async (query = '') => {
    const res = await t.app.inject({ method: 'GET', url: `/api/bans${query}` });
    expect(res.statusCode, res.body).toBe(200);
    return res.json<PublicBansPage>();
  };

  async function fill(p: PluginDbHandle) {
    const now = Date.now();
    await p.exec('INSERT INTO litebans_history (name, uuid, ip) VALUES (?, ?, ?), (?, ?, ?), (?, ?, ?), (?, ?, ?)', [
      'OldName',
      uuidOf(1),
      '198.51.100.1',
      'Notch_Fan',
      uuidOf(2),
      '198.51.100.2',
      'Quiet',
      uuidOf(3),
      '198.51.100.3',
      'Kicked',
      uuidOf(4),
      '198.51.100.4',
    ]);
    // A later login under a new name: the list shows the latest.
    await p.exec("INSERT INTO litebans_history (name, uuid, ip, date) VALUES (?, ?, ?, '2037-01-01 00:00:00')", [
      'NewName',
      uuidOf(1),
      '198.51.100.1',
    ]);
    await p.insert('bans', [
      { uuid: uuidOf(1), reason: 'Читы', banned_by_name: 'Console', time: now - 3 * DAY, until: -1, ip: '198.51.100.1' },
      { uuid: uuidOf(2), reason: 'Оскорбления', banned_by_name: 'Moder', time: now - 2 * DAY, until: now + DAY, server_scope: 'survival' },
      { uuid: uuidOf(3), reason: 'тихий бан', banned_by_name: 'Moder', time: now - DAY, until: -1, silent: true },
      { uuid: '#', reason: 'IP-бан без игрока', banned_by_name: 'Moder', time: now - DAY, until: -1, ipban: true },
      { uuid: uuidOf(2), reason: 'Старый бан', banned_by_name: 'Moder', time: now - 30 * DAY, until: now - 20 * DAY, active: true },
      { uuid: uuidOf(4), reason: 'Снят', banned_by_name: 'Moder', time: now - 40 * DAY, until: -1, active: false },
    ]);
    await p.insert('mutes', [{ uuid: uuidOf(2), reason: 'Флуд', banned_by_name: 'Moder', time: now - DAY, until: now + DAY }]);
    await p.insert('kicks', [{ uuid: uuidOf(4), reason: 'АФК', banned_by_name: 'Moder', time: now - DAY, until: 0 }]);
    await p.insert('warnings', [{ uuid: uuidOf(4), reason: 'Капс', banned_by_name: 'Moder', time: now - DAY, until: -1 }]);
  }

  it('only the owner connects the database; staff see no address', async () => {
    const refused = await connect(staff, { database_url: 'mysql://u:p@127.0.0.1:3306/x' });
    expect(refused.statusCode).toBe(403);
    expect(refused.json<{ code: string }>().code).toBe('owner_only');
    const bad = await connect(owner, { database_url: 'http://127.0.0.1/' });
    expect(bad.statusCode).toBe(400);
    expect(errorOf(bad)).toMatch(/mysql/);
  });

  // PostgreSQL's flags as LiteBans makes them (BIT), and as a table made or altered by hand might keep them.
  const backends: { name: string; tag: string; flags?: LiteBansPgFlags }[] = [
    { name: 'mariadb', tag: 'Maria' },
    ...(process.env.TEST_DATABASE_URL
      ? [
          { name: 'postgres', tag: 'PgBit', flags: 'bit' as const },
          { name: 'postgres with BOOLEAN flags', tag: 'PgBool', flags: 'boolean' as const },
          { name: 'postgres with SMALLINT flags', tag: 'PgInt', flags: 'smallint' as const },
        ]
      : []),
  ];
  for (const { name: backend, tag, flags } of backends) {
    it(`shows LiteBans' punishments from ${backend} merged with the site's bans, never an IP, a silent one or a player-less one`, async () => {
      const p = flags ? await postgresLiteBans(flags) : await mariaLiteBans(liteBansMysqlTables());
      plugins.push(p);
      await fill(p);
      const res = await connect(owner, { plugin: 'litebans', database_url: p.url, table_prefix: 'litebans_' });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toMatchObject({ plugin: 'litebans', connected: true, kind: flags ? 'postgres' : 'mysql' });
      expect(res.body).not.toContain(new URL(p.url).password || 'no-password-in-url');
      const seen = await t.app.inject(asUser(staff, { method: 'GET', url: '/api/admin/bans/source' }));
      expect(seen.json()).toMatchObject({ connected: true, display: null });
      const check = await t.app.inject(asUser(owner, { method: 'POST', url: '/api/admin/bans/source/check' }));
      expect(check.json(), check.body).toMatchObject({ ok: true, problems: [] });

      // A site ban, given between the plugin's.
      const siteId = await seedUser(t, `Site${tag}`, { password: PASSWORD });
      expect(
        (
          await t.app.inject(
            asUser(owner, {
              method: 'POST',
              url: `/api/admin/users/${siteId}/ban`,
              payload: { reason: 'Спам', note: 'секрет', until: null },
            }),
          )
        ).statusCode,
      ).toBe(200);

      const bans = await list();
      expect(bans.kinds).toEqual(['ban', 'mute', 'kick', 'warning']);
      expect(bans.items.map((b) => [b.source, b.username, b.reason])).toEqual([
        ['site', `Site${tag}`, 'Спам'],
        ['litebans', 'Notch_Fan', 'Оскорбления'],
        ['litebans', 'NewName', 'Читы'],
        ['litebans', 'Notch_Fan', 'Старый бан'],
        ['litebans', 'Kicked', 'Снят'],
      ]);
      const [, temp, perm, ended, lifted] = bans.items;
      expect(temp).toMatchObject({ by: 'Moder', server: 'survival', active: true });
      expect(temp!.until).toBeGreaterThan(Date.now());
      expect(perm).toMatchObject({ by: 'Console', until: null, active: true, server: null });
      expect(ended).toMatchObject({ active: false });
      expect(lifted).toMatchObject({ active: false });
      const body = JSON.stringify(bans);
      for (const hidden of ['198.51.100', '203.0.113', 'тихий', 'IP-бан', 'секрет', 'OldName']) expect(body).not.toContain(hidden);

      expect((await list('?q=notch')).items.map((b) => b.reason)).toEqual(['Оскорбления', 'Старый бан']);
      expect((await list('?q=quiet')).items).toEqual([]);
      expect((await list('?kind=mute')).items).toMatchObject([{ kind: 'mute', username: 'Notch_Fan', reason: 'Флуд', active: true }]);
      expect((await list('?kind=kick')).items).toMatchObject([{ kind: 'kick', username: 'Kicked', active: false, until: null }]);
      expect((await list('?kind=warning')).items).toMatchObject([{ kind: 'warning', reason: 'Капс', active: true }]);

      // The next backend's test starts without this site ban.
      await t.handle.db.updateTable('users').set({ deleted_at: Date.now() }).where('id', '=', siteId).execute();
      // Disconnected: the site's bans alone.
      expect((await connect(owner, { database_url: null })).json()).toMatchObject({ connected: false });
      expect((await list()).items.every((b) => b.source === 'site')).toBe(true);
    });
  }

  it('pages through many LiteBans rows with the site bans merged in, each row once', async () => {
    const p = await mariaLiteBans(liteBansMysqlTables());
    plugins.push(p);
    const now = Date.now();
    await p.exec(
      `INSERT INTO litebans_history (name, uuid, ip) VALUES ${Array.from({ length: 60 }, () => '(?, ?, ?)').join(', ')}`,
      Array.from({ length: 60 }, (_, i) => [`P${i}`, uuidOf(100 + i), '198.51.100.9']).flat(),
    );
    await p.insert(
      'bans',
      Array.from({ length: 60 }, (_, i) => ({
        uuid: uuidOf(100 + i),
        reason: `r${i}`,
        banned_by_name: 'M',
        time: now - i * 60_000,
        until: -1,
      })),
    );
    expect((await connect(owner, { plugin: 'litebans', database_url: p.url })).statusCode).toBe(200);
    // Three site bans among the plugin's: given 15.5, 30.5 and 45.5 minutes ago.
    for (const minutes of [15.5, 30.5, 45.5]) {
      const id = await seedUser(t, `Mixed${minutes * 10}`, { password: PASSWORD });
      const res = await t.app.inject(
        asUser(owner, { method: 'POST', url: `/api/admin/users/${id}/ban`, payload: { note: 'n', until: null } }),
      );
      expect(res.statusCode).toBe(200);
      await t.handle.db
        .updateTable('bans')
        .set({ created_at: now - minutes * 60_000 })
        .where('user_id', '=', id)
        .execute();
    }
    const first = await list();
    const total = 63;
    expect(first.pages).toBe(4);
    const names: string[] = [];
    for (let page = 1; page <= first.pages; page++)
      names.push(...(await list(`?page=${page}`)).items.map((b) => `${b.source}:${b.username}:${b.since}`));
    expect(names).toHaveLength(total);
    expect(new Set(names).size).toBe(total);
    // Newest first across both lists: P15 (15 minutes ago) comes right before the site ban of 15.5.
    const at = names.findIndex((n) => n.startsWith('site:Mixed155:'));
    expect(names[at - 1]).toMatch(/^litebans:P15:/);
    expect(names[at + 1]).toMatch(/^litebans:P16:/);

    // A new punishment shows on page 1 at once; the pages after it follow once the kept keys are renewed.
    await p.insert('bans', [{ uuid: uuidOf(100), reason: 'новый', banned_by_name: 'M', time: Date.now(), until: -1 }]);
    expect((await list()).items[0]).toMatchObject({ reason: 'новый' });
    await new Promise((r) => setTimeout(r, 300));
    const again: string[] = [];
    for (let page = 1; page <= 4; page++)
      again.push(...(await list(`?page=${page}`)).items.map((b) => `${b.source}:${b.reason}:${b.since}`));
    expect(again).toHaveLength(64);
    expect(new Set(again).size).toBe(64);
    expect((await connect(owner, { database_url: null })).statusCode).toBe(200);
  });

  it("reads AdvancedBan's history, never an IP punishment or a note", async () => {
    const p = await mariaLiteBans(advancedBanMysqlTables());
    plugins.push(p);
    const now = Date.now();
    const row = (name: string, type: string, reason: string, start: number | string, end: number | string) => [
      name,
      `uuid${name}`,
      reason,
      'Admin',
      type,
      String(start),
      String(end),
    ];
    // Written as the plugin writes them: in the order they were given.
    const history = [
      row('Steve', 'TEMP_BAN', 'Старый', now - 10 * DAY, now - 9 * DAY),
      row('Alex', 'BAN', 'Читы', now - 3 * DAY, -1),
      row('Steve', 'TEMP_MUTE', 'Флуд', now - 2 * DAY, now + DAY),
      row('Herobrine', 'IP_BAN', 'IP', now - DAY, -1),
      row('Alex', 'NOTE', 'заметка', now - DAY, -1),
      // `start` and `end` are MEDIUMTEXT: whatever text a hand or another program left there.
      row('Garbage', 'BAN', 'начало словами', 'вчера', -1),
      row('Endless', 'BAN', 'конец словами', now - 4 * DAY, 'никогда'),
    ];
    const insert = (table: string, rows: unknown[][]) =>
      p.exec(
        `INSERT INTO ${table} (name, uuid, reason, operator, punishmentType, start, end) VALUES ${rows.map(() => '(?, ?, ?, ?, ?, ?, ?)').join(', ')}`,
        rows.flat(),
      );
    await insert('PunishmentHistory', history);
    await insert('Punishments', [history[1]!, history[2]!, history[3]!, history[5]!, history[6]!]);
    expect((await connect(owner, { plugin: 'advancedban', database_url: p.url, table_prefix: '' })).statusCode).toBe(200);
    const bans = await list();
    const ab = bans.items.filter((b) => b.source === 'advancedban');
    expect(ab.map((b) => [b.username, b.reason, b.active, b.until])).toEqual([
      ['Endless', 'конец словами', false, null],
      ['Alex', 'Читы', true, null],
      ['Steve', 'Старый', false, now - 9 * DAY],
    ]);
    expect(JSON.stringify(bans)).not.toContain('начало словами');
    expect((await list('?kind=mute')).items).toMatchObject([{ username: 'Steve', active: true }]);
    expect(JSON.stringify(bans)).not.toContain('заметка');
    expect(JSON.stringify(bans)).not.toContain('Herobrine');
    expect((await connect(owner, { database_url: null })).statusCode).toBe(200);
  });

  it('reads foreign rows as hostile: a time that is not one, an over-long text, an odd flag cost that row, not the page', async () => {
    const p = await mariaLiteBans(liteBansMysqlTables());
    plugins.push(p);
    // Columns altered by hand: times as text, flags as numbers, wider texts.
    await p.exec(
      'ALTER TABLE litebans_bans MODIFY `time` VARCHAR(64) NOT NULL, MODIFY `until` VARCHAR(64) NOT NULL, MODIFY reason TEXT, ' +
        'MODIFY server_scope VARCHAR(255), MODIFY silent TINYINT NOT NULL, MODIFY active TINYINT NOT NULL',
    );
    await p.exec('ALTER TABLE litebans_history MODIFY name VARCHAR(255) NULL');
    await p.exec('INSERT INTO litebans_history (name, uuid, ip) VALUES (?, ?, ?), (NULL, ?, ?)', [
      'N'.repeat(40),
      uuidOf(501),
      '198.51.100.5',
      uuidOf(502),
      '198.51.100.6',
    ]);
    const now = Date.now();
    const rows: [number, string, string, string, number, number, string][] = [
      [501, 'Длинная'.repeat(1000), String(now - 1000), '-1', 0, 1, 's'.repeat(100)],
      [501, 'время словами', 'вчера', '-1', 0, 1, '*'],
      [502, 'конец словами', String(now - 2000), 'завтра', 0, 1, '*'],
      [502, 'тихий два', String(now - 3000), '-1', 2, 1, '*'],
      [502, 'active семь', String(now - 4000), '-1', 0, 7, '*'],
    ];
    await p.exec(
      `INSERT INTO litebans_bans (uuid, reason, banned_by_uuid, banned_by_name, \`time\`, \`until\`, silent, active, ipban, server_scope) VALUES ${rows
        .map(() => "(?, ?, 'CONSOLE', 'Moder', ?, ?, ?, ?, 0, ?)")
        .join(', ')}`,
      rows.flatMap(([n, reason, time, until, silent, active, scope]) => [uuidOf(n), reason, time, until, silent, active, scope]),
    );
    expect((await connect(owner, { plugin: 'litebans', database_url: p.url, table_prefix: 'litebans_' })).statusCode).toBe(200);
    const page = await list();
    const lb = page.items.filter((b) => b.source === 'litebans');
    expect(lb.map((b) => [b.username, b.reason.slice(0, 13), b.active, b.until])).toEqual([
      ['N'.repeat(16), 'ДлиннаяДлинна', true, null],
      ['(имя неизвестно)', 'конец словами', false, null],
      ['(имя неизвестно)', 'active семь', false, null],
    ]);
    expect(lb[0]!.reason).toHaveLength(2048);
    expect(lb[0]!.server).toBe('s'.repeat(32));
    expect(lb[0]!.since).toBe(now - 1000);
    const body = JSON.stringify(page);
    for (const hidden of ['вчера', 'время словами', 'тихий два', 'завтра']) expect(body).not.toContain(hidden);
    expect((await connect(owner, { database_url: null })).statusCode).toBe(200);
  });

  it('shows the site bans when the plugin database is down', async () => {
    expect((await connect(owner, { plugin: 'litebans', database_url: 'mysql://u:p@127.0.0.1:9/none' })).statusCode).toBe(200);
    const res = await t.app.inject({ method: 'GET', url: '/api/bans' });
    expect(res.statusCode).toBe(200);
    expect(res.json<PublicBansPage>().items.every((b) => b.source === 'site')).toBe(true);
    const check = await t.app.inject(asUser(owner, { method: 'POST', url: '/api/admin/bans/source/check' }));
    expect(check.json()).toMatchObject({ ok: false });
    expect(check.body).not.toContain(':p@');
    expect((await connect(owner, { database_url: null })).statusCode).toBe(200);
  });
});
