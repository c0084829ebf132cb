import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { chatToText, motdToPlain, stripFormatting } from './motd.ts';
import { queryStatus, StatusError, type StatusOptions } from './status.ts';
import { defaultStatus, StatusPeer, type PeerOptions } from '../../../../../testing/minecraft-status-peer.ts';
import { decodeVarInt, encodeVarInt } from './varint.ts';

const peers: StatusPeer[] = [];
async function peer(options: PeerOptions): Promise<StatusPeer> {
  const p = await new StatusPeer(options).start();
  peers.push(p);
  return p;
}
afterEach(async () => {
  await Promise.all(peers.splice(0).map((p) => p.stop()));
});

/** Client-side sockets and timers alive in this process (the peer's are counted too, so drain it first). */
function handles(): { sockets: number; timers: number } {
  const info = process.getActiveResourcesInfo();
  return { sockets: info.filter((r) => r === 'TCPSocketWrap').length, timers: info.filter((r) => r === 'Timeout').length };
}

async function failure(options: StatusOptions): Promise<{ error: StatusError; ms: number }> {
  const started = performance.now();
  try {
    await queryStatus(options);
  } catch (error) {
    expect(error).toBeInstanceOf(StatusError);
    return { error: error as StatusError, ms: performance.now() - started };
  }
  throw new Error('the check did not fail');
}

async function closedPort(): Promise<number> {
  const srv = net.createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', () => r()));
  const { port } = srv.address() as net.AddressInfo;
  await new Promise<void>((r) => srv.close(() => r()));
  return port;
}

describe('VarInt', () => {
  it('round-trips the values of the protocol, negatives as five bytes', () => {
    for (const v of [0, 1, 127, 128, 255, 25565, 2097151, 2147483647, -1, -2147483648]) {
      const enc = encodeVarInt(v);
      expect(decodeVarInt(enc)).toEqual({ value: v, size: enc.length });
    }
    expect([...encodeVarInt(300)]).toEqual([0xac, 0x02]);
    expect(encodeVarInt(-1).length).toBe(5);
    expect(decodeVarInt(Buffer.from([0x80, 0x80]))).toBeNull();
    expect(() => decodeVarInt(Buffer.from([0xff, 0xff, 0xff, 0xff, 0xff, 0x01]))).toThrow();
  });
});

describe('MOTD to text', () => {
  it('flattens chat components and drops § codes', () => {
    expect(stripFormatting('§aЗелёный §l§kжирный§r')).toBe('Зелёный жирный');
    expect(
      chatToText({
        text: 'Привет',
        extra: [
          { text: ', ', bold: true },
          { text: 'мир', extra: ['!'] },
        ],
      }),
    ).toBe('Привет, мир!');
    expect(chatToText([{ text: 'a' }, 'b', { translate: 'x %s y %s', with: ['1', { text: '2' }] }])).toBe('abx 1 y 2');
    expect(motdToPlain({ text: '  §6Kubik\n§7 строка два ', extra: [{ text: '\u0007' }] })).toBe('Kubik\nстрока два');
    // A hostile, deeply nested description costs nothing.
    let deep: unknown = { text: 'x' };
    for (let i = 0; i < 10_000; i++) deep = { extra: [deep] };
    expect(motdToPlain(deep)).toBe('');
  });
});

describe('Server List Ping client', () => {
  it('reads players, version, MOTD and favicon, and sends a proper handshake', async () => {
    const favicon = 'data:image/png;base64,iVBORw0KGgo=';
    const p = await peer({ status: { ...(defaultStatus(7, 50, 'Сервер') as object), favicon } });
    const status = await queryStatus({ host: '127.0.0.1', port: p.port, timeoutMs: 2000 });
    expect(status).toMatchObject({
      online: 7,
      max: 50,
      playersKnown: true,
      version: '1.21.4',
      protocol: 769,
      motd: 'Сервер',
      favicon,
      legacy: false,
      address: { host: '127.0.0.1', port: p.port },
    });
    expect(status.latencyMs).toBeGreaterThanOrEqual(0);
    expect(p.handshakes).toEqual([{ protocol: -1, host: '127.0.0.1', port: p.port, nextState: 1 }]);
    expect(await p.drained()).toBe(true);
  });

  it('reads a Cyrillic MOTD from a chat object with § codes', async () => {
    const p = await peer({
      status: defaultStatus(1, 10, {
        text: '§aДобро пожаловать',
        extra: [{ text: ' на §6Кубик', color: 'gold' }, { text: '\n§7Выживание 1.21' }],
      }),
    });
    const status = await queryStatus({ host: '127.0.0.1', port: p.port, timeoutMs: 2000 });
    expect(status.motd).toBe('Добро пожаловать на Кубик\nВыживание 1.21');
  });

  it('takes a reply without a players field as 0 online, players unknown', async () => {
    const p = await peer({ status: { version: { name: 'Velocity 3.3', protocol: 769 }, description: 'proxy' } });
    const status = await queryStatus({ host: '127.0.0.1', port: p.port, timeoutMs: 2000 });
    expect(status).toMatchObject({ online: 0, max: 0, playersKnown: false, version: 'Velocity 3.3', favicon: null });
  });

  it('gives up on a silent listener after one deadline and leaves no socket or timer', async () => {
    const p = await peer({ mode: 'silent' });
    const before = handles();
    const { error, ms } = await failure({ host: '127.0.0.1', port: p.port, timeoutMs: 400 });
    expect(error.code).toBe('timeout');
    expect(ms).toBeGreaterThanOrEqual(390);
    // One deadline, not one for the modern ping and another for the legacy fallback.
    expect(ms).toBeLessThan(700);
    expect(await p.drained()).toBe(true);
    expect(handles().sockets).toBeLessThanOrEqual(before.sockets);
    expect(handles().timers).toBeLessThanOrEqual(before.timers);
  });

  it('fails fast on a closed port', async () => {
    const { error, ms } = await failure({ host: '127.0.0.1', port: await closedPort(), timeoutMs: 3000 });
    expect(error.code).toBe('refused');
    expect(error.message).toBe('Соединение отклонено: порт закрыт');
    expect(ms).toBeLessThan(1000);
  });

  it('refuses garbage bytes as a protocol error, without waiting for the deadline', async () => {
    const p = await peer({ mode: 'garbage' });
    const { error, ms } = await failure({ host: '127.0.0.1', port: p.port, timeoutMs: 3000 });
    expect(error.code).toBe('protocol');
    expect(ms).toBeLessThan(1500);
    expect(await p.drained()).toBe(true);
    for (const garbage of [
      Buffer.from([0x00, 0xde, 0xad]),
      Buffer.from([0x05, 0x07, 1, 2, 3, 4]),
      Buffer.from([0xff, 0xff, 0xff, 0xff, 0xff, 0xff]),
    ]) {
      const noise = await peer({ mode: 'garbage', garbage });
      expect((await failure({ host: '127.0.0.1', port: noise.port, timeoutMs: 3000 })).error.code).toBe('protocol');
    }
  });

  it('refuses a status that is not JSON, and a server that hangs up at once', async () => {
    const bad = await peer({ status: '{"players": ' });
    expect((await failure({ host: '127.0.0.1', port: bad.port, timeoutMs: 2000 })).error.code).toBe('protocol');
    const rude = await peer({ mode: 'close' });
    expect((await failure({ host: '127.0.0.1', port: rude.port, timeoutMs: 2000 })).error.code).toBe('closed');
  });

  it('measures a slow pong, and keeps the status when the pong never comes', async () => {
    const slow = await peer({ pongDelayMs: 250 });
    const status = await queryStatus({ host: '127.0.0.1', port: slow.port, timeoutMs: 2000 });
    expect(status.online).toBe(3);
    expect(status.latencyMs).toBeGreaterThanOrEqual(240);

    const never = await peer({ noPong: true });
    const started = performance.now();
    const kept = await queryStatus({ host: '127.0.0.1', port: never.port, timeoutMs: 400 });
    expect(kept.online).toBe(3);
    expect(performance.now() - started).toBeLessThan(700);
    expect(await never.drained()).toBe(true);
  });

  it('falls back to the 1.6 legacy ping', async () => {
    const p = await peer({ mode: 'legacy', legacy: { version: '1.6.4', motd: '§cСтарый сервер', online: 5, max: 40 } });
    const status = await queryStatus({ host: '127.0.0.1', port: p.port, timeoutMs: 2000 });
    expect(status).toMatchObject({ online: 5, max: 40, version: '1.6.4', protocol: 78, motd: 'Старый сервер', legacy: true });
    expect(p.legacyPings).toEqual([0x01]);
  });

  it('looks up _minecraft._tcp for a host name without a port, and not with one', async () => {
    const p = await peer({});
    const asked: string[] = [];
    const resolveSrv = async (name: string) => {
      asked.push(name);
      return [
        { name: 'backup.invalid', port: 1, priority: 20, weight: 0 },
        { name: '127.0.0.1', port: p.port, priority: 10, weight: 5 },
      ];
    };
    const status = await queryStatus({ host: 'play.kubik.example', timeoutMs: 2000, resolveSrv });
    expect(asked).toEqual(['_minecraft._tcp.play.kubik.example']);
    expect(status.address).toEqual({ host: '127.0.0.1', port: p.port });
    // The handshake names the address the player typed, as the game does.
    expect(p.handshakes[0]?.host).toBe('play.kubik.example');

    await queryStatus({ host: '127.0.0.1', timeoutMs: 200, resolveSrv }).catch(() => {});
    await queryStatus({ host: 'localhost', port: p.port, timeoutMs: 2000, resolveSrv });
    expect(asked).toHaveLength(1);
  });

  it('counts a slow DNS answer against the same deadline', async () => {
    const { error, ms } = await failure({ host: 'slow.kubik.example', timeoutMs: 300, resolveSrv: () => new Promise(() => {}) });
    expect(error.code).toBe('timeout');
    expect(ms).toBeLessThan(600);
  });

  it('stops when the caller aborts', async () => {
    const p = await peer({ mode: 'silent' });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const { error, ms } = await failure({ host: '127.0.0.1', port: p.port, timeoutMs: 5000, signal: controller.signal });
    expect(error.code).toBe('aborted');
    expect(ms).toBeLessThan(1000);
    expect(await p.drained()).toBe(true);
  });

  it('checks many silent servers in parallel within one deadline', async () => {
    const silent = await Promise.all(Array.from({ length: 20 }, () => peer({ mode: 'silent' })));
    const started = performance.now();
    const results = await Promise.allSettled(silent.map((s) => queryStatus({ host: '127.0.0.1', port: s.port, timeoutMs: 500 })));
    expect(results.every((r) => r.status === 'rejected')).toBe(true);
    expect(performance.now() - started).toBeLessThan(1200);
    for (const s of silent) expect(await s.drained()).toBe(true);
  });
});
