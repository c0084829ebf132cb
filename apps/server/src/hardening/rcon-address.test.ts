import net from 'node:net';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VanillaRconServer } from '../../../../testing/rcon/vanilla-server.ts';
import { enqueueDelivery } from '../modules/deliveries/deliveries.queue.ts';
import { drainDeliveries } from '../modules/deliveries/deliveries.worker.ts';
import { asUser, createTestApp, dbKinds, errorOf, loginAs, seedUser, type TestApp } from '../test/test-app.ts';

const PASSWORD = 'owner-rcon-password-0123';
const DELIVERY = { intervalMs: 1000, timeoutMs: 600 };

/**
 * A listener of a staff member's own on 127.0.0.1: it keeps every byte the site sends it (an RCON
 * login carries the password in the clear) and never answers.
 */
async function startListener() {
  const received: Buffer[] = [];
  let connections = 0;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    connections += 1;
    sockets.add(socket);
    socket.on('data', (chunk: Buffer) => received.push(chunk));
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    connections: () => connections,
    text: () => Buffer.concat(received).toString('latin1'),
    stop: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/*
 * A staff member with `servers` tries to learn a game server's RCON password (which runs any
 * console command): point the stored server's RCON at a listener of their own, leaving the
 * password empty so that the stored one is «kept», then press «Проверить RCON» or wait for a
 * delivery. A changed RCON address (host or port, the server's own address when no RCON host is
 * set) drops the stored password unless a new one comes in the same save, and the check sends the
 * stored password only to the stored address.
 */
describe.each(dbKinds)('RCON address and its password on %s', (kind) => {
  let t: TestApp;
  let rcon: VanillaRconServer;
  let listener: Awaited<ReturnType<typeof startListener>>;
  let owner: string;
  let staff: string;
  let playerId: number;

  const call = (token: string, method: 'GET' | 'PUT' | 'POST', url: string, payload?: object) =>
    t.app.inject(asUser(token, { method, url, ...(payload === undefined ? {} : { payload }) }));
  const stored = (id: number) => t.handle.db.selectFrom('servers').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  const leaked = () => listener.text().includes(PASSWORD);

  /** A server as the owner adds it: RCON on the double, the password typed in the form. */
  async function addServer(name: string): Promise<number> {
    const res = await call(owner, 'POST', '/api/servers/', {
      name,
      description: 'Сервер',
      ip_address: '127.0.0.1',
      rcon_port: rcon.port,
      rcon_password: PASSWORD,
    });
    expect(res.statusCode, res.body).toBe(201);
    return res.json().server.id as number;
  }
  /** What the admin form sends on «Сохранить»: every field as shown, the password left empty. */
  const form = async (id: number, change: object) => {
    const s = await stored(id);
    return {
      name: s.name,
      description: s.description,
      image_url: s.image_url,
      ip_address: s.ip_address,
      port: s.port,
      max_online: s.max_online,
      rcon_host: s.rcon_host ?? '',
      rcon_port: s.rcon_port,
      rcon_password: '',
      command_template: s.command_template ?? '',
      ...change,
    };
  };
  const passwordGone = (res: LightMyRequestResponse) => {
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().server).toMatchObject({ has_rcon_password: false, rcon_configured: false });
    expect(res.json().server.rcon_password_dropped_at).toEqual(expect.any(Number));
  };

  beforeAll(async () => {
    rcon = new VanillaRconServer({ password: PASSWORD, online: ['Steve'] });
    await rcon.start(0);
    listener = await startListener();
    t = await createTestApp(kind, { rateLimits: { enabled: false }, workers: false, delivery: DELIVERY });
    await seedUser(t, 'Owner', { admin: true });
    owner = await loginAs(t, 'Owner');
    const staffId = await seedUser(t, 'Servers_Staff');
    playerId = await seedUser(t, 'Steve');
    const role = await call(owner, 'POST', '/api/admin/roles', { name: 'Серверы', permissions: ['servers'] });
    expect(role.statusCode, role.body).toBe(200);
    expect((await call(owner, 'PUT', `/api/admin/users/${staffId}/role`, { role_id: role.json().id })).statusCode).toBe(200);
    staff = await loginAs(t, 'Servers_Staff');
  });
  afterAll(async () => {
    await t?.close();
    await rcon?.stop();
    await listener?.stop();
  });

  it('«Проверить RCON» sends the stored password only to the stored address', async () => {
    const id = await addServer('Выживание');
    expect((await call(staff, 'POST', '/api/servers/rcon-check', { server_id: id })).json()).toMatchObject({ ok: true });
    // The form as it stands is the stored address: the stored password may go there.
    const same = await call(staff, 'POST', '/api/servers/rcon-check', { server_id: id, ip_address: '127.0.0.1', rcon_port: rcon.port });
    expect(same.json()).toMatchObject({ ok: true });
    for (const body of [
      { server_id: id, rcon_port: listener.port },
      { server_id: id, rcon_port: listener.port, rcon_password: '' },
      { server_id: id, rcon_host: 'localhost' },
      { server_id: id, ip_address: '127.0.0.2' },
    ]) {
      const res = await call(staff, 'POST', '/api/servers/rcon-check', body);
      expect(res.statusCode, `${JSON.stringify(body)}: ${res.body}`).toBe(400);
      expect(res.json()).toMatchObject({ code: 'invalid', field: 'rcon_password' });
      expect(errorOf(res)).toMatch(/введите пароль/i);
    }
    expect(listener.connections()).toBe(0);
    // A password typed in the form goes where the form says: it is the typist's own.
    const typed = await call(staff, 'POST', '/api/servers/rcon-check', { server_id: id, rcon_port: listener.port, rcon_password: 'typed' });
    expect(typed.json()).toMatchObject({ ok: false });
    expect(listener.text()).toContain('typed');
    expect(leaked()).toBe(false);
  });

  it('a changed RCON port drops the stored password in the same save, in the audit log; neither a check nor a delivery sends it', async () => {
    const id = await addServer('Мини-игры');
    const connections = listener.connections();
    const moved = await call(staff, 'PUT', `/api/servers/${id}`, await form(id, { rcon_port: listener.port }));
    passwordGone(moved);
    const row = await stored(id);
    expect([row.rcon_password, row.rcon_port]).toEqual([null, listener.port]);
    const audit = await t.handle.db
      .selectFrom('audit_log')
      .selectAll()
      .where('action', '=', 'server.update')
      .where('entity_id', '=', String(id))
      .orderBy('id', 'desc')
      .executeTakeFirstOrThrow();
    expect(JSON.parse(audit.before_json!)).toMatchObject({ rcon_password: '***' });
    expect(JSON.parse(audit.after_json!)).toMatchObject({ rcon_password: null, rcon_key_dropped_at: expect.any(Number) });
    expect(audit.after_json).not.toContain(PASSWORD);

    const check = await call(staff, 'POST', '/api/servers/rcon-check', { server_id: id });
    expect([check.statusCode, check.json().field]).toEqual([400, 'rcon_password']);
    await t.handle.db.transaction().execute((trx) =>
      enqueueDelivery(trx, {
        source: 'vote',
        sourceId: null,
        userId: playerId,
        label: 'Награда',
        server: id,
        commands: ['say {player}'],
      }),
    );
    await drainDeliveries(t.handle.db, DELIVERY, t.app.log);
    const delivery = await t.handle.db.selectFrom('deliveries').selectAll().where('server_id', '=', id).executeTakeFirstOrThrow();
    expect(delivery.state).not.toBe('done');
    expect(listener.connections()).toBe(connections);
    expect(leaked()).toBe(false);

    // Moving back does not bring the password back: it is typed again, for the address it is typed for.
    passwordGone(await call(staff, 'PUT', `/api/servers/${id}`, await form(id, { rcon_port: rcon.port })));
    const again = await call(staff, 'PUT', `/api/servers/${id}`, await form(id, { rcon_password: PASSWORD }));
    expect(again.json().server).toMatchObject({ has_rcon_password: true, rcon_password_dropped_at: null });
    expect((await call(staff, 'POST', '/api/servers/rcon-check', { server_id: id })).json()).toMatchObject({ ok: true });
  });

  it('the server’s own address is RCON’s when no RCON host is set: changing it drops the password too; the owner’s change as well', async () => {
    const id = await addServer('Креатив');
    passwordGone(await call(owner, 'PUT', `/api/servers/${id}`, await form(id, { ip_address: 'localhost' })));
    await call(owner, 'PUT', `/api/servers/${id}`, await form(id, { ip_address: '127.0.0.1', rcon_password: PASSWORD }));
    passwordGone(await call(staff, 'PUT', `/api/servers/${id}`, await form(id, { rcon_host: 'localhost' })));
    expect(leaked()).toBe(false);
  });

  it('what does not move RCON keeps the password: the same address spelled alike, the game port, the name', async () => {
    const id = await addServer('Хардкор');
    for (const change of [
      {},
      { name: 'Хардкор 2', port: 25566, description: 'Другое описание' },
      { rcon_host: '127.0.0.1' },
      { rcon_host: '' },
      { rcon_port: rcon.port },
    ]) {
      const res = await call(staff, 'PUT', `/api/servers/${id}`, await form(id, change));
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().server, JSON.stringify(change)).toMatchObject({ has_rcon_password: true, rcon_password_dropped_at: null });
    }
    // A new address with its password in the same save: the new password is kept for it.
    const both = await call(
      staff,
      'PUT',
      `/api/servers/${id}`,
      await form(id, { rcon_port: listener.port, rcon_password: 'for-the-new-port' }),
    );
    expect(both.json().server).toMatchObject({ has_rcon_password: true, rcon_password_dropped_at: null });
    expect((await stored(id)).rcon_password).toBe('for-the-new-port');
    expect(leaked()).toBe(false);
  });
});
