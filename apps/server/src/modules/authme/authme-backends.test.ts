import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuthMePlugin, DEFAULT_COLUMNS, sha256 } from '../../../../../testing/authme/authme-plugin.ts';
import { freePort } from '../../../../../testing/free-port.ts';
import { startMariaDb, type MariaDb } from '../../../../../testing/mariadb.ts';
import { independentHash, mysqlRunner, postgresAuthMe, sqliteAuthMe, type AuthMeDb } from '../../test/authme.ts';
import { asUser, createTestApp, loginAs, seedUser, type TestApp } from '../../test/test-app.ts';

/*
 * AuthMe's three backends with real servers: MariaDB from Debian's packages started here on a
 * temporary directory and a free port (its databases and users made and dropped by the tests),
 * PostgreSQL on TEST_DATABASE_URL's server, and an AuthMe SQLite file. Each table is made as
 * AuthMe makes it; the site connects as a user that may only SELECT, INSERT and UPDATE it, as
 * docs/authme.md tells the owner to set up.
 */

let maria: MariaDb;
beforeAll(async () => {
  maria = await startMariaDb();
}, 120_000);
afterAll(async () => {
  await maria?.stop();
});

/** AuthMe's table on MariaDB, made by the plugin's own user; the site's user limited to that table. */
async function mariaAuthMe(): Promise<AuthMeDb & { database: string }> {
  const db = await maria.createDatabase();
  const pluginUser = await maria.createUser(db.name);
  const runner = await mysqlRunner(pluginUser.url);
  const plugin = new AuthMePlugin(runner, DEFAULT_COLUMNS);
  await plugin.createTable();
  const site = await maria.createUser(db.name, { grants: 'SELECT, INSERT, UPDATE', table: 'authme' });
  return {
    url: site.url,
    plugin,
    runner,
    database: db.name,
    async close() {
      await runner.close();
      await db.drop();
    },
  };
}

const backends: [string, () => Promise<AuthMeDb>][] = [
  ['MariaDB', mariaAuthMe],
  ...(process.env.TEST_DATABASE_URL ? [['PostgreSQL', () => postgresAuthMe()] as [string, () => Promise<AuthMeDb>]] : []),
  ['SQLite', () => sqliteAuthMe()],
];

describe.each(backends)('AuthMe on %s', (_name, make) => {
  let a: AuthMeDb;
  let t: TestApp;
  let owner: string;
  beforeAll(async () => {
    a = await make();
    t = await createTestApp('sqlite', { authme: { databaseUrl: a.url, table: 'authme', hash: 'BCRYPT' }, loginFailureDelayMs: 0 });
    await seedUser(t, 'Owner', { admin: true, password: 'owner-pass-123' });
    owner = await loginAs(t, 'Owner', 'owner-pass-123');
    // AuthMe's ExternalBoardOptions.bCryptLog2Round, low here for speed.
    expect((await t.app.inject(asUser(owner, { method: 'PUT', url: '/api/admin/authme', payload: { bcrypt_cost: 5 } }))).statusCode).toBe(
      200,
    );
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    await a?.close();
  });
  const login = (username: string, password: string) =>
    t.app.inject({ method: 'POST', url: '/api/user/login', payload: { username, password } });

  it('«Проверить подключение» finds the table as AuthMe made it', async () => {
    // pyca bcrypt's hash, as AuthMe's BCRYPT stores it.
    await a.plugin.register('Sampled', independentHash('BCRYPT', 'password', 'pyca'));
    const res = await t.app.inject(asUser(owner, { method: 'POST', url: '/api/admin/authme/check' }));
    expect(res.statusCode).toBe(200);
    expect(res.json(), res.body).toMatchObject({ ok: true, problems: [] });
    // The owner's first login gave the owner a row too.
    expect(res.json().notes.join(' ')).toContain(`Строк в таблице «authme»: ${await a.plugin.count()}`);
    expect(res.json().notes.join(' ')).toMatch(/все похожи на BCRYPT/);
    // The password is right; the account came without an address, so the site asks for one.
    expect((await login('sampled', 'password')).json().code).toBe('authme_email_required');
  });

  it('both ways: in-game registration and password change are seen by the site, the site’s are taken by the game', async () => {
    await a.plugin.register('GamePlayer', sha256('not-bcrypt'), { email: 'gameplayer@example.com' });
    // AuthMe is set to BCRYPT here: a SHA256 row is another algorithm's, refused and reported.
    expect((await login('gameplayer', 'not-bcrypt')).statusCode).toBe(401);

    const reg = await t.app.inject({
      method: 'POST',
      url: '/api/user/register',
      payload: { username: 'WebPlayer', email: 'webplayer@example.com', password: 'Web-pass-123' },
    });
    expect(reg.statusCode, reg.body).toBe(201);
    expect(await a.plugin.login('WebPlayer', 'Web-pass-123', 'BCRYPT')).toBe(true);
    expect((await a.plugin.row('webplayer'))!.hash).toMatch(/^\$2a\$05\$/);

    // The account needs its address confirmed to log in on the site: done as the letter would.
    await t.handle.db.updateTable('users').set({ email_verified_at: Date.now() }).where('username_lower', '=', 'webplayer').execute();
    // /changepassword in the game: a $2y$ hash PHP's crypt() made.
    await a.plugin.changePassword('webplayer', independentHash('BCRYPT', 'PassWord1', 'PHP crypt'));
    expect((await login('WebPlayer', 'Web-pass-123')).statusCode).toBe(401);
    expect((await login('WebPlayer', 'PassWord1')).statusCode).toBe(200);
  });
});

describe('«Проверить подключение» says what is wrong (MariaDB)', () => {
  let a: AuthMeDb & { database: string };
  let t: TestApp;
  let owner: string;
  beforeAll(async () => {
    a = await mariaAuthMe();
    t = await createTestApp('sqlite', { loginFailureDelayMs: 0 });
    await seedUser(t, 'Owner', { admin: true, password: 'owner-pass-123' });
    owner = await loginAs(t, 'Owner', 'owner-pass-123');
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    await a?.close();
  });
  const put = (payload: object) => t.app.inject(asUser(owner, { method: 'PUT', url: '/api/admin/authme', payload }));
  const check = async () => (await t.app.inject(asUser(owner, { method: 'POST', url: '/api/admin/authme/check' }))).json();

  it('refused, wrong password, unknown database, table or column missing, no right to write, unknown algorithm', async () => {
    expect((await check()).problems).toEqual(['AuthMe не подключён: укажите адрес базы данных AuthMe']);
    const url = new URL(a.url);
    const closed = new URL(a.url);
    closed.port = String(await freePort());
    const cases: [object, RegExp][] = [
      [{ database_url: closed.toString() }, /Соединение отклонено/],
      [{ database_url: Object.assign(new URL(a.url), { password: 'wrong' }).toString() }, /не приняла имя пользователя или пароль/],
      [
        { database_url: Object.assign(new URL(a.url), { pathname: '/no_such_db' }).toString() },
        /(Базы данных «no_such_db» на сервере нет|не разрешён доступ к базе «no_such_db»)/,
      ],
      [{ database_url: url.toString(), table: 'players' }, /Таблицы «players» нет/],
      [{ table: 'authme', columns: { email: 'mail' } }, /нет столбца «mail»/],
    ];
    for (const [body, problem] of cases) {
      const saved = await put(body);
      expect(saved.statusCode, saved.body).toBe(200);
      const result = await check();
      expect(result.ok).toBe(false);
      expect(result.problems.join(' | ')).toMatch(problem);
    }
    // An algorithm AuthMe lacks or the site cannot follow is refused beside its field.
    expect((await put({ columns: { email: 'email' } })).statusCode).toBe(200);
    const whirl = await put({ hash: 'WHIRLPOOL' });
    expect(whirl.statusCode).toBe(400);
    expect(whirl.json()).toMatchObject({ code: 'invalid', field: 'hash' });
    // A column algorithm without the salt column: told.
    await put({ hash: 'SALTEDSHA512' });
    expect((await check()).problems.join(' ')).toMatch(/соль в отдельном столбце/);
    // A user that may only read.
    const reader = await maria.createUser(a.database, { grants: 'SELECT', table: 'authme' });
    await put({ hash: 'BCRYPT', database_url: reader.url });
    expect((await check()).problems.join(' ')).toMatch(/не хватает прав/);
    await put({ database_url: a.url });
    expect(await check()).toMatchObject({ ok: true });
    // The address is never shown with its password.
    const view = await t.app.inject(asUser(owner, { method: 'GET', url: '/api/admin/authme' }));
    expect(view.body).not.toContain(decodeURIComponent(url.password));
    expect(view.json().connection).toMatchObject({ source: 'set', kind: 'mysql' });
  });

  it('only the owner sets the address; staff see the page without it', async () => {
    const staffId = await seedUser(t, 'Settings_Staff');
    const role = await t.app.inject(
      asUser(owner, { method: 'POST', url: '/api/admin/roles', payload: { name: 'Настройки', permissions: ['settings'] } }),
    );
    await t.app.inject(asUser(owner, { method: 'PUT', url: `/api/admin/users/${staffId}/role`, payload: { role_id: role.json().id } }));
    const staff = await loginAs(t, 'Settings_Staff');
    const view = await t.app.inject(asUser(staff, { method: 'GET', url: '/api/admin/authme' }));
    expect(view.statusCode).toBe(200);
    expect(view.json().connection.display).toBeNull();
    const change = await t.app.inject(
      asUser(staff, { method: 'PUT', url: '/api/admin/authme', payload: { database_url: 'mysql://evil:pw@attacker.example:3306/x' } }),
    );
    expect(change.statusCode).toBe(403);
    expect(change.json().code).toBe('owner_only');
    // Staff may not start an import either.
    const run = await t.app.inject(asUser(staff, { method: 'POST', url: '/api/admin/authme/imports', payload: { mode: 'dry' } }));
    expect(run.statusCode).toBe(403);
  });
});
