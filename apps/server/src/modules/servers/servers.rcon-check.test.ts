import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VanillaRconServer } from '../../../../../testing/rcon/vanilla-server.ts';
import { asUser, createTestApp, dbKinds, errorOf, loginAs, seedUser, type TestApp } from '../../test/test-app.ts';
import { closeTestApp } from '../shop/shop.test-helpers.ts';

const TIMEOUT = 400;

describe.each(dbKinds)('«Проверить RCON» on %s', (kind) => {
  let t: TestApp;
  let admin: string;
  let player: string;
  const rcon = new VanillaRconServer({ password: 'rcon-secret', online: ['Steve', 'Alex'] });
  const hung = new VanillaRconServer({ password: 'rcon-secret', onCommand: () => null });
  const silent = net.createServer((s) => s.resume());
  let silentPort = 0;

  beforeAll(async () => {
    t = await createTestApp(kind, { workers: false, delivery: { intervalMs: 1000, timeoutMs: TIMEOUT } });
    await seedUser(t, 'Admin', { admin: true });
    await seedUser(t, 'Steve');
    admin = await loginAs(t, 'Admin');
    player = await loginAs(t, 'Steve');
    await rcon.start(0);
    await hung.start(0);
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', () => r()));
    silentPort = (silent.address() as net.AddressInfo).port;
  });
  afterAll(async () => {
    await rcon.stop();
    await hung.stop();
    await new Promise((r) => silent.close(r));
    await closeTestApp(t);
  });

  const check = (payload: object, token: string | null = admin) =>
    t.app.inject(asUser(token, { method: 'POST', url: '/api/servers/rcon-check', payload }));
  const form = (fields: object = {}) => ({ ip_address: '127.0.0.1', rcon_port: rcon.port, rcon_password: 'rcon-secret', ...fields });

  it("logs in with the form's settings, runs list and answers what the server said", async () => {
    const res = await check(form());
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({
      ok: true,
      reply: 'There are 2 of a max of 20 players online: steve, alex',
      address: `127.0.0.1:${rcon.port}`,
    });
    expect(res.json().message).toMatch(/^RCON работает: вход выполнен, сервер ответил на list за \d+ мс$/);
    expect(rcon.commands.at(-1)).toBe('list');
    expect(rcon.violations).toEqual([]);
  });

  it('uses the stored settings of a saved server for what the form leaves out (an empty password keeps the stored one)', async () => {
    const saved = await t.app.inject(
      asUser(admin, {
        method: 'POST',
        url: '/api/servers/',
        payload: { name: 'Выживание', description: 'Сервер', ip_address: '127.0.0.1', rcon_port: rcon.port, rcon_password: 'rcon-secret' },
      }),
    );
    const id = saved.json().server.id as number;
    expect((await check({ server_id: id, rcon_password: '' })).json()).toMatchObject({ ok: true });
    expect((await check({ server_id: id })).json()).toMatchObject({ ok: true });
    // The form's new password is tried, not the stored one.
    expect((await check({ server_id: id, rcon_password: 'typo' })).json()).toMatchObject({
      ok: false,
      message: 'Неверный пароль RCON: сервер отклонил вход (проверьте rcon.password в server.properties)',
    });
    expect((await check({ server_id: 999_999 })).statusCode).toBe(404);
    // Nothing was saved by checking.
    const row = await t.handle.db.selectFrom('servers').select('rcon_password').where('id', '=', id).executeTakeFirstOrThrow();
    expect(row.rcon_password).toBe('rcon-secret');
  });

  it('says exactly why it does not work: refused, wrong password, no answer in N ms, address not found', async () => {
    const closed = await new Promise<number>((resolve) => {
      const s = net.createServer();
      s.listen(0, '127.0.0.1', () => {
        const { port } = s.address() as net.AddressInfo;
        s.close(() => resolve(port));
      });
    });
    const cases: [object, string][] = [
      [form({ rcon_port: closed }), 'Нет связи с RCON: соединение отклонено (сервер выключен или RCON не включён)'],
      [form({ rcon_password: 'wrong' }), 'Неверный пароль RCON: сервер отклонил вход (проверьте rcon.password в server.properties)'],
      [form({ rcon_port: silentPort }), `Нет связи с RCON: нет ответа за ${TIMEOUT} мс`],
      [form({ rcon_port: hung.port }), `Вход выполнен, но сервер не ответил на list за ${TIMEOUT} мс`],
      [form({ rcon_host: 'no-such-host.invalid' }), 'Нет связи с RCON: адрес сервера не найден'],
    ];
    for (const [body, message] of cases) {
      const res = await check(body);
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toMatchObject({ ok: false, message, reply: null });
    }
  });

  it('refuses a check without an address or a password', async () => {
    expect(errorOf(await check({ rcon_password: 'x' }))).toBe('Укажите адрес сервера или адрес RCON');
    expect(errorOf(await check({ ip_address: '127.0.0.1' }))).toBe('Укажите пароль RCON');
    expect((await check({ ip_address: 'a b', rcon_password: 'x' })).statusCode).toBe(400);
    expect((await check({ ip_address: '127.0.0.1', rcon_password: 'x', rcon_port: 70000 })).statusCode).toBe(400);
  });

  it('is for administrators only: nobody else can make the site connect anywhere', async () => {
    const before = rcon.connections;
    const asPlayer = await check(form(), player);
    expect(asPlayer.statusCode).toBe(403);
    expect((await check(form(), null)).statusCode).toBe(401);
    expect((await check(form(), 'not-a-token')).statusCode).toBe(401);
    expect(rcon.connections).toBe(before);
  });

  it('limits how often one administrator may check', async () => {
    const closedForm = form({ rcon_port: 1 });
    let limited = null;
    for (let i = 0; i < 70 && !limited; i++) {
      const res = await check(closedForm);
      if (res.statusCode === 429) limited = res;
    }
    expect(limited).not.toBeNull();
    expect(errorOf(limited!)).toMatch(/Слишком много попыток/);
  });
});
