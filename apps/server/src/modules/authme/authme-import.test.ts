import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256 } from '../../../../../testing/authme/authme-plugin.ts';
import { sqliteAuthMe, type AuthMeDb } from '../../test/authme.ts';
import { asUser, createTestApp, dbKinds, loginAs, seedUser, type TestApp } from '../../test/test-app.ts';
import { ClaimOwner, ClaimQueue } from '../../lib/jobs/index.ts';
import { BATCH, importPage, runImport, takeBackImports } from './authme.import.ts';
import * as repo from './authme.repo.ts';
import { authMeOf } from './authme.service.ts';

/*
 * The bulk import of AuthMe's table: the dry run's counts, the import in pages, a second run that
 * makes nothing twice, a run that goes on after a crash, hostile rows refused and never run or
 * shown as markup, and the first login of an imported player on AuthMe's own hash.
 */

const PLAIN = 2 * BATCH + 150;
const HOSTILE = ["robert'); drop table users; --", '<script>alert(1)</script>', 'x'.repeat(5000), 'Игрок', 'ab', 'a b c'];

describe.each(dbKinds)('AuthMe import (site on %s)', (kind) => {
  let t: TestApp;
  let a: AuthMeDb;
  let owner: string;
  beforeAll(async () => {
    a = await sqliteAuthMe();
    // Players of the game: every tenth without an address, some with an address a site account has.
    const insert = a.runner;
    await insert.exec('BEGIN');
    for (let i = 0; i < PLAIN; i++) {
      const name = `Miner_${i}`;
      const email = i % 10 === 0 ? null : i % 97 === 0 ? 'taken@example.com' : `miner${i}@example.com`;
      await a.plugin.register(name, sha256(`pass-${i}`), { email });
    }
    for (const name of HOSTILE) await a.plugin.insertRaw({ name: name.toLowerCase(), realname: name, password: sha256('pw').hash });
    await a.plugin.insertRaw({ name: 'broken_one', realname: 'Broken_One', password: '' });
    await a.plugin.insertRaw({ name: 'broken_two', realname: 'Broken_Two', password: '$SHA$zz' });
    await insert.exec('COMMIT');
    t = await createTestApp(kind, {
      authme: { databaseUrl: a.url, table: 'authme', hash: 'SHA256' },
      loginFailureDelayMs: 0,
      workers: false,
    });
    await seedUser(t, 'Owner', { admin: true, password: 'owner-pass-123' });
    owner = await loginAs(t, 'Owner', 'owner-pass-123');
    // A site account with a player's name, and one with a player's address.
    await seedUser(t, 'Miner_5', { password: 'site-pass-123' });
    await t.handle.db
      .updateTable('users')
      .set({ email: 'taken@example.com', email_lower: 'taken@example.com' })
      .where('username_lower', '=', 'owner')
      .execute();
  }, 120_000);
  afterAll(async () => {
    await t?.close();
    await a?.close();
  });

  const start = async (mode: 'dry' | 'import') => {
    const res = await t.app.inject(asUser(owner, { method: 'POST', url: '/api/admin/authme/imports', payload: { mode } }));
    expect(res.statusCode, res.body).toBe(200);
    return res.json() as { id: number };
  };
  const work = () => runImport(t.app.ctx, () => authMeOf(t.app.ctx));
  const status = async (id: number) =>
    (await t.app.inject(asUser(owner, { method: 'GET', url: `/api/admin/authme/imports/${id}` }))).json();
  const users = async () =>
    Number(
      (
        await t.handle.db
          .selectFrom('users')
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );
  const total = PLAIN + HOSTILE.length + 2;
  // The owner's login gave the owner an AuthMe row too.
  const expected = {
    total: total + 1,
    processed: total + 1,
    linked: 1,
    name_collisions: 1,
    refused: HOSTILE.length,
    broken_hashes: 2,
  };

  it('a dry run counts without writing: accounts, names and addresses taken, refused names, broken hashes', async () => {
    const before = await users();
    const { id } = await start('dry');
    // One run at a time.
    const again = await t.app.inject(asUser(owner, { method: 'POST', url: '/api/admin/authme/imports', payload: { mode: 'import' } }));
    expect(again.json().code).toBe('authme_import_running');
    expect(await work()).toBe(id);
    const run = await status(id);
    expect(run).toMatchObject({ state: 'done', mode: 'dry', ...expected });
    // Every tenth has no address and every 97th the owner's (Miner_5 is not made at all); the broken rows have none.
    let noAddress = 2;
    for (let i = 0; i < PLAIN; i++) if (i !== 5 && (i % 10 === 0 || i % 97 === 0)) noAddress++;
    expect(run.without_email).toBe(noAddress);
    expect(run.created).toBe(PLAIN - 1 + 2);
    expect(await users()).toBe(before);
    const refusals = (await t.app.inject(asUser(owner, { method: 'GET', url: `/api/admin/authme/imports/${id}/refusals` }))).json();
    const names = refusals.refusals.map((r: { name: string }) => r.name);
    expect(names).toContain("robert'); drop table users; --");
    expect(names).toContain('<script>alert(1)</script>');
    // A 5,000-character name is listed cut, with its length.
    expect(names).toContain(`${'x'.repeat(64)}… (5000 символов)`);
    expect(refusals.refusals.find((r: { name: string }) => r.name === 'Miner_5').reason).toBe('имя занято аккаунтом сайта');
  });

  it('the import makes the accounts page by page; a second run makes nothing twice', async () => {
    const before = await users();
    const { id } = await start('import');
    await work();
    const run = await status(id);
    expect(run).toMatchObject({ state: 'done', mode: 'import', ...expected });
    expect(await users()).toBe(before + run.created);
    const miner = await t.handle.db.selectFrom('users').selectAll().where('username_lower', '=', 'miner_1').executeTakeFirstOrThrow();
    expect(miner).toMatchObject({ username: 'Miner_1', email: 'miner1@example.com', password_hash: repo.NO_SITE_PASSWORD });
    // Hostile names were never made into accounts; the tables are whole.
    for (const name of HOSTILE)
      expect(await t.handle.db.selectFrom('users').select('id').where('username', '=', name).executeTakeFirst()).toBeUndefined();

    const second = await start('import');
    await work();
    expect(await status(second.id)).toMatchObject({ state: 'done', created: 0, linked: run.created + 1, refused: HOSTILE.length });
    expect(await users()).toBe(before + run.created);
  });

  it('an imported player logs in with the game password: AuthMe’s hash is kept until then, the site’s own made then', async () => {
    const login = (username: string, password: string) =>
      t.app.inject({ method: 'POST', url: '/api/user/login', payload: { username, password } });
    expect((await login('miner_1', 'pass-2')).statusCode).toBe(401);
    expect((await login('MINER_1', 'pass-1')).statusCode).toBe(200);
    const row = await t.handle.db
      .selectFrom('users')
      .select('password_hash')
      .where('username_lower', '=', 'miner_1')
      .executeTakeFirstOrThrow();
    expect(row.password_hash).toMatch(/^\$argon2id\$/);
    // Without an address: asked for one.
    expect((await login('miner_10', 'pass-10')).json().code).toBe('authme_email_required');
    // A broken hash opens nothing.
    expect((await login('broken_one', 'x')).statusCode).toBe(401);
    expect((await login('broken_two', 'pw')).statusCode).toBe(401);
  });

  it('a run stopped by a crash goes on from its last page: no page twice, none lost', async () => {
    // Another AuthMe, set up by the owner in the admin.
    const more = await sqliteAuthMe();
    try {
      await more.runner.exec('BEGIN');
      for (let i = 0; i < BATCH + 300; i++) await more.plugin.register(`Crafter_${i}`, sha256('x'), { email: `crafter${i}@example.com` });
      await more.runner.exec('COMMIT');
      const put = await t.app.inject(asUser(owner, { method: 'PUT', url: '/api/admin/authme', payload: { database_url: more.url } }));
      expect(put.statusCode, put.body).toBe(200);
      const ctx = t.app.ctx;
      const found = (await authMeOf(ctx))!;
      await repo.createImport(t.handle.db, 'import', null, BATCH + 300, Date.now());
      // An earlier life of this instance claims the run, does one page and dies holding it.
      const earlier = new ClaimOwner(ctx.config.instanceId, t.handle.kind === 'sqlite');
      const queue = new ClaimQueue(
        t.handle.db,
        { table: 'authme_imports', leaseMs: 120_000, due: (eb) => eb('state', 'in', ['queued', 'running']) },
        earlier,
      );
      const claim = await queue.claim(1, ['id'], { set: { state: 'running' } });
      const run = (await repo.importById(t.handle.db, claim.rows[0]!.id))!;
      expect(await importPage(ctx, found.cfg, found.adb, run, claim.token)).toBe('more');
      // Nobody else may take it while the lease runs...
      expect(await runImport(ctx, () => authMeOf(ctx))).toBeNull();
      // ...but this instance, started again, takes back what its earlier life held.
      expect(await takeBackImports(ctx)).toBe(1);
      expect(await runImport(ctx, () => authMeOf(ctx))).toBe(run.id);
      const done = (await repo.importById(t.handle.db, run.id))!;
      expect(done).toMatchObject({ state: 'done', processed: BATCH + 300, created: BATCH + 300 });
      const made = await t.handle.db.selectFrom('users').select('username').where('username_lower', 'like', 'crafter_%').execute();
      expect(made.length).toBe(BATCH + 300);
    } finally {
      await more.close();
    }
  });
});
