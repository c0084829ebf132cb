import { afterEach, describe, expect, it } from 'vitest';
import { VanillaRconServer, type VanillaRconOptions } from '../../../../../testing/rcon/vanilla-server.ts';
import { RconError } from './client.ts';
import { RconPool } from './pool.ts';

const stops: (() => unknown)[] = [];
afterEach(async () => {
  for (const s of stops.splice(0)) await s();
});

async function vanilla(options: Partial<VanillaRconOptions> = {}) {
  const server = new VanillaRconServer({ password: 'secret', online: ['Steve'], ...options });
  stops.push(() => server.stop());
  await server.start(0);
  return server;
}

function pool(options: Partial<ConstructorParameters<typeof RconPool>[0]> = {}) {
  const p = new RconPool({ timeoutMs: 2000, ...options });
  stops.push(() => p.closeAll());
  return p;
}

const at = (port: number, password = 'secret') => ({ host: '127.0.0.1', port, password });

describe('RCON connection pool', () => {
  it('keeps one logged-in connection per server and runs every command on it', async () => {
    const a = await vanilla();
    const b = await vanilla();
    const p = pool();
    for (let i = 0; i < 3; i++) {
      expect(await (await p.get(1, at(a.port))).command('list', 2000)).toMatch(/players online/);
      await (await p.get(2, at(b.port))).command('list', 2000);
    }
    expect([a.connections, b.connections]).toEqual([1, 1]);
    expect(a.logins).toEqual([{ ok: true }]);
  });

  it('opens a new connection after the old one dropped, or when the address or password changed', async () => {
    let drop = true;
    const a = await vanilla({ onCommand: () => (drop ? { drop: 'after' } : undefined) });
    const p = pool();
    const first = await p.get(1, at(a.port));
    await expect(first.command('list', 2000)).rejects.toMatchObject({ kind: 'noanswer' });
    drop = false;
    const second = await p.get(1, at(a.port));
    expect(second).not.toBe(first);
    await second.command('list', 2000);
    expect(a.connections).toBe(2);

    // The admin set a new password: the open connection is not used for it.
    const b = await vanilla({ password: 'other' });
    const moved = await p.get(1, at(b.port, 'other'));
    expect(moved).not.toBe(second);
    expect(second.closed).toBe(true);
    expect(b.logins).toEqual([{ ok: true }]);
  });

  it('throws the connect or login failure, having sent nothing', async () => {
    const a = await vanilla();
    const p = pool();
    const refused = await p.get(1, at(a.port, 'wrong')).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(RconError);
    expect((refused as RconError).kind).toBe('auth');
    await a.stop();
    const gone = await p.get(1, at(a.port)).catch((e: unknown) => e);
    expect((gone as RconError).kind).toBe('connect');
    expect(a.commands).toEqual([]);
  });

  it('closes a connection left idle, unless its server is still in use', async () => {
    const a = await vanilla();
    const busy = new Set<number>([1]);
    const p = pool({ idleCloseMs: 50, inUse: (id) => busy.has(id) });
    const kept = await p.get(1, at(a.port));
    const idle = await p.get(2, at(a.port));
    await new Promise((r) => setTimeout(r, 150));
    expect(idle.closed).toBe(true);
    expect(kept.closed).toBe(false);
    busy.clear();
    expect(await p.get(1, at(a.port))).toBe(kept);
    await new Promise((r) => setTimeout(r, 150));
    expect(kept.closed).toBe(true);
  });
});
