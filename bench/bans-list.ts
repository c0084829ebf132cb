/**
 * npm run bench:bans — the public ban list (GET /api/bans) over LiteBans' tables with 1,000,000
 * bans (BANS_BENCH_ROWS) on a MariaDB server started for the bench (testing/mariadb.ts), the tables
 * made as LiteBans makes them, 100,000 players in its history, one in 500 bans silent. The site
 * (SQLite, with 50 bans of its own merged in) reads them as a SELECT-only user. Browses: pages
 * 1–500 at random, a fifth of the requests a search by a name's start, a tenth mutes; prints p50
 * and p99 of the answer times through the app (inject). Goal: p99 ≤ 50 ms. Needs a quiet machine.
 */
import { startMariaDb } from '../testing/mariadb.ts';
import { liteBansMysqlTables } from '../testing/litebans/tables.ts';
import { asUser, createTestApp, loginAs, seedUser } from '../apps/server/src/test/test-app.ts';

const ROWS = Number(process.env.BANS_BENCH_ROWS ?? 1_000_000);
const PLAYERS = 100_000;
const REQUESTS = Number(process.env.BANS_BENCH_REQUESTS ?? 3000);
const GOAL_P99_MS = 50;
const BATCH = 5000;

const uuidOf = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const nameOf = (n: number) => `Player_${n.toString(36)}`;

const maria = await startMariaDb();
try {
  const database = await maria.createDatabase();
  const conn = await maria.admin(database.name);
  for (const sql of liteBansMysqlTables()) await conn.query(sql);
  const started = Date.now();
  for (let from = 0; from < PLAYERS; from += BATCH) {
    const rows = Array.from({ length: Math.min(BATCH, PLAYERS - from) }, (_, i) => [nameOf(from + i), uuidOf(from + i), '198.51.100.1']);
    await conn.query('INSERT INTO litebans_history (name, uuid, ip) VALUES ?', [rows]);
  }
  const now = Date.now();
  for (const table of ['litebans_bans', 'litebans_mutes']) {
    const count = table === 'litebans_bans' ? ROWS : Math.floor(ROWS / 10);
    for (let from = 0; from < count; from += BATCH) {
      const rows = Array.from({ length: Math.min(BATCH, count - from) }, (_, k) => {
        const i = from + k;
        const time = now - (count - i) * 30_000;
        return [
          uuidOf(i % PLAYERS),
          '198.51.100.1',
          `Нарушение правил ${i % 37}`,
          'CONSOLE',
          'Console',
          time,
          i % 3 === 0 ? -1 : time + 86_400_000 * 7,
          '*',
          'lobby',
          i % 500 === 0 ? 1 : 0,
          0,
          0,
          1,
        ];
      });
      await conn.query(
        `INSERT INTO ${table} (uuid, ip, reason, banned_by_uuid, banned_by_name, time, until, server_scope, server_origin, silent, ipban, ipban_wildcard, active) VALUES ?`,
        [rows],
      );
    }
  }
  await conn.query('ANALYZE TABLE litebans_bans, litebans_mutes, litebans_history');
  console.log(`filled ${ROWS} bans, ${Math.floor(ROWS / 10)} mutes, ${PLAYERS} players in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  await conn.end();
  const reader = await maria.createUser(database.name, { grants: 'SELECT' });

  const t = await createTestApp('sqlite', { rateLimits: { enabled: false } });
  try {
    await seedUser(t, 'Owner', { admin: true, password: 'bench-pass-42' });
    const owner = await loginAs(t, 'Owner', 'bench-pass-42');
    for (let i = 0; i < 50; i++) {
      const id = await seedUser(t, `SiteBanned${i}`);
      await t.app.inject(asUser(owner, { method: 'POST', url: `/api/admin/users/${id}/ban`, payload: { note: 'bench', until: null } }));
    }
    const res = await t.app.inject(
      asUser(owner, { method: 'PUT', url: '/api/admin/bans/source', payload: { plugin: 'litebans', database_url: reader.url } }),
    );
    if (res.statusCode !== 200) throw new Error(`connect: ${res.statusCode} ${res.body}`);

    const url = () => {
      const page = 1 + Math.floor(Math.random() * 500);
      const r = Math.random();
      if (r < 0.2) return `/api/bans?q=${nameOf(Math.floor(Math.random() * PLAYERS)).slice(0, 9)}`;
      if (r < 0.3) return `/api/bans?kind=mute&page=${page}`;
      return `/api/bans?page=${page}`;
    };
    for (let i = 0; i < 200; i++) await t.app.inject({ method: 'GET', url: url() });
    const times: number[] = [];
    const byKind = new Map<string, number[]>();
    for (let i = 0; i < REQUESTS; i++) {
      const u = url();
      const t0 = performance.now();
      const r = await t.app.inject({ method: 'GET', url: u });
      const ms = performance.now() - t0;
      times.push(ms);
      const kind = u.includes('q=') ? 'search' : u.includes('mute') ? 'mutes' : 'bans';
      byKind.set(kind, [...(byKind.get(kind) ?? []), ms]);
      if (r.statusCode !== 200) throw new Error(`${u}: ${r.statusCode} ${r.body}`);
    }
    for (const [kind, list] of byKind) {
      list.sort((a, b) => a - b);
      console.log(
        `  ${kind}: p50 ${list[Math.floor(list.length / 2)]!.toFixed(1)} ms, p99 ${list[Math.floor(list.length * 0.99)]!.toFixed(1)} ms`,
      );
    }
    times.sort((a, b) => a - b);
    const at = (q: number) => times[Math.min(times.length - 1, Math.floor(q * times.length))]!;
    const p99 = at(0.99);
    console.log(
      `GET /api/bans × ${REQUESTS}: p50 ${at(0.5).toFixed(1)} ms, p99 ${p99.toFixed(1)} ms, max ${times.at(-1)!.toFixed(1)} ms (goal p99 ≤ ${GOAL_P99_MS} ms)`,
    );
    if (p99 > GOAL_P99_MS) process.exitCode = 1;
  } finally {
    await t.close();
    await database.drop();
  }
} finally {
  await maria.stop();
}
