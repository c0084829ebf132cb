import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { asUser, createTestApp, dbKinds, loginAs, seedUser, type TestApp } from '../../test/test-app.ts';
import { eraseAccount } from './users.erase.ts';
import { endLogins, sessionSweepJob } from './users.logins.ts';
import { Hook, Port } from './users.ports.ts';

const gameToken = (userId: number, hashChar: string) => ({
  access_hash: hashChar.repeat(64),
  refresh_hash: null,
  kind: 'yggdrasil' as const,
  user_id: userId,
  client_token: null,
  profile_name: 'p',
  created_at: Date.now(),
  expires_at: Date.now() + 1e6,
  refresh_until: Date.now() + 1e6,
});

describe.each(dbKinds)('the users core on %s', (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(kind);
  });
  afterAll(async () => {
    await t?.close();
  });

  const me = async (token: string) => (await t.app.inject(asUser(token, { method: 'GET', url: '/api/user/me' }))).statusCode;
  const tokensOf = async (userId: number) =>
    (await t.handle.db.selectFrom('game_tokens').select('user_id').where('user_id', '=', userId).execute()).length;

  it('sweeps expired sessions of everyone in its hourly job, and only those', async () => {
    const userId = await seedUser(t, 'SweepMe');
    const token = await loginAs(t, 'SweepMe');
    const now = Date.now();
    await t.handle.db
      .insertInto('sessions')
      .values([
        { token_hash: 'sweep-old', user_id: userId, created_at: 1, expires_at: now - 1, ip: null, user_agent: null },
        { token_hash: 'sweep-new', user_id: userId, created_at: 1, expires_at: now + 60_000, ip: null, user_agent: null },
      ])
      .execute();
    const job = sessionSweepJob(t.handle.db);
    expect(job.everyMs).toBe(3_600_000);
    await job.run(new AbortController().signal);
    const left = (await t.handle.db.selectFrom('sessions').select('token_hash').where('user_id', '=', userId).execute()).map(
      (r) => r.token_hash,
    );
    expect(left).not.toContain('sweep-old');
    expect(left).toContain('sweep-new');
    expect(await me(token)).toBe(200);
  });

  it("endLogins ends the user's site sessions but the kept one, and the launchers' tokens; nobody else's", async () => {
    const steve = await seedUser(t, 'EndSteve');
    const alex = await seedUser(t, 'EndAlex');
    const kept = await loginAs(t, 'EndSteve');
    const other = await loginAs(t, 'EndSteve');
    const third = await loginAs(t, 'EndSteve');
    const alexSession = await loginAs(t, 'EndAlex');
    await t.handle.db
      .insertInto('game_tokens')
      .values([gameToken(steve, 'c'), gameToken(alex, 'd')])
      .execute();

    const ended = await t.handle.db.transaction().execute((trx) => endLogins(trx, steve, { keep: kept }));

    expect(ended).toBe(2);
    expect([await me(kept), await me(other), await me(third), await me(alexSession)]).toEqual([200, 401, 401, 200]);
    // Game tokens belong to game-auth: they end through the hook it registered with its routes.
    expect([await tokensOf(steve), await tokensOf(alex)]).toEqual([0, 1]);

    expect(await t.handle.db.transaction().execute((trx) => endLogins(trx, steve))).toBe(1);
    expect(await me(kept)).toBe(401);
  });

  it('eraseAccount: the logins end and every feature forgets what it kept of the person', async () => {
    const id = await seedUser(t, 'Erased');
    await loginAs(t, 'Erased');
    const now = Date.now();
    await t.handle.db
      .insertInto('email_changes')
      .values({
        user_id: id,
        old_email: 'erased@example.com',
        new_email: 'new-erased@example.com',
        confirm_hash: 'e'.repeat(64),
        cancel_hash: 'f'.repeat(64),
        created_at: now,
        expires_at: now + 1e6,
        cancel_until: now + 1e6,
        confirmed_at: null,
        cancelled_at: null,
      })
      .execute();
    await t.handle.db
      .insertInto('two_factor')
      .values({ user_id: id, secret: 'sealed', pending_secret: null, pending_at: null, enabled_at: now, last_step: null })
      .execute();
    await t.handle.db
      .insertInto('two_factor_recovery')
      .values({ user_id: id, code_hash: 'a'.repeat(64), used_at: null })
      .execute();
    const count = async (table: 'sessions' | 'known_devices' | 'email_changes' | 'two_factor' | 'two_factor_recovery') =>
      (await t.handle.db.selectFrom(table).select('user_id').where('user_id', '=', id).execute()).length;
    expect(await count('known_devices')).toBe(1);

    await t.handle.db.transaction().execute((trx) => eraseAccount(trx, id));

    for (const table of ['sessions', 'known_devices', 'email_changes', 'two_factor', 'two_factor_recovery'] as const)
      expect(await count(table), table).toBe(0);
    const row = await t.handle.db
      .selectFrom('users')
      .select(['username', 'email', 'deleted_at'])
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    expect(row).toMatchObject({ username: `Удалён #${id}`, email: `deleted#${id}` });
    expect(row.deleted_at).not.toBeNull();
  });
});

describe('ports and hooks', () => {
  it('a question nobody answers fails loudly, unless a fallback stands in; the answer replaces the fallback', () => {
    const required = new Port<() => string>('the weather');
    expect(() => required.ask()).toThrow(/Nobody answers "the weather"/);
    const optional = new Port<() => string | null>('the tide', () => null);
    expect(optional.ask()()).toBeNull();
    optional.provide(() => 'high');
    expect(optional.ask()()).toBe('high');
  });

  it('a module that registers its reaction again (a second app in the process) still reacts once', async () => {
    const hook = new Hook<[number]>();
    const seen: string[] = [];
    for (let i = 0; i < 2; i++) hook.on('skins', async (n) => void seen.push(`skins ${n}`));
    hook.on('capes', async (n) => void seen.push(`capes ${n}`));
    await hook.run(7);
    expect(seen).toEqual(['skins 7', 'capes 7']);
  });
});
