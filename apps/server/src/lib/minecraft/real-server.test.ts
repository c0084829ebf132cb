import type { AddressInfo } from 'node:net';
import mc from 'minecraft-protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { asUser, createTestApp, loginAs, seedUser } from '../../test/test-app.ts';
import { queryStatus } from './status.ts';

const FAVICON = 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';

// The client against real Minecraft server software (the minecraft-protocol package's server,
// which speaks the vanilla handshake), not only against our own test peer.
describe('against the minecraft-protocol server', () => {
  let server: mc.Server;
  let port = 0;
  beforeAll(async () => {
    server = mc.createServer({
      'online-mode': false,
      host: '127.0.0.1',
      port: 0,
      version: '1.20.4',
      motd: '§aКубик §7— выживание',
      maxPlayers: 42,
      favicon: FAVICON,
    });
    await new Promise<void>((resolve) => server.on('listening', () => resolve()));
    // socketServer is there at run time but missing from the package's types.
    port = (server as unknown as { socketServer: { address(): AddressInfo } }).socketServer.address().port;
  });
  afterAll(() => server?.close());

  it('reads its status', async () => {
    const status = await queryStatus({ host: '127.0.0.1', port, timeoutMs: 3000 });
    expect(status.max).toBe(42);
    expect(status.online).toBe(0);
    expect(status.motd).toBe('Кубик — выживание');
    expect(status.version).toBe('1.20.4');
    expect(status.legacy).toBe(false);
    expect(status.favicon).toBe(FAVICON);
  });

  it('counts a player who joined', async () => {
    const client = mc.createClient({ host: '127.0.0.1', port, username: 'Steve', version: '1.20.4', auth: 'offline' });
    try {
      await new Promise<void>((resolve, reject) => {
        server.once('login', () => resolve());
        client.once('error', reject);
      });
      const status = await queryStatus({ host: '127.0.0.1', port, timeoutMs: 3000 });
      expect(status.online).toBe(1);
    } finally {
      client.end('bye');
    }
  });

  it('shows as online in the list of the site after the monitor checked it', async () => {
    const t = await createTestApp('sqlite', { workers: false });
    try {
      await seedUser(t, 'Admin', { admin: true });
      const token = await loginAs(t, 'Admin');
      const created = await t.app.inject(
        asUser(token, {
          method: 'POST',
          url: '/api/servers/',
          payload: { name: 'Настоящий', description: 'minecraft-protocol', ip_address: '127.0.0.1', port, max_online: 42 },
        }),
      );
      expect(created.statusCode).toBe(201);
      const swept = await t.app.inject(asUser(token, { method: 'POST', url: '/api/servers/monitor' }));
      expect(swept.json()).toMatchObject({ checked: 1, online: 1 });
      const list = (await t.app.inject({ method: 'GET', url: '/api/servers/' })).json();
      expect(list.servers[0]).toMatchObject({ status: 'online', online: 0, max_online: 42, version: '1.20.4', motd: 'Кубик — выживание' });
      expect(list.servers[0].favicon_url).toMatch(/^\/api\/servers\/\d+\/favicon\.png\?v=/);
    } finally {
      await t.close();
    }
  });
});
