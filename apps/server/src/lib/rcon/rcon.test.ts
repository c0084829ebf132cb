import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { SourceRconServer } from '../../../../../testing/rcon/source-server.ts';
import { VanillaRconServer, type VanillaRconOptions } from '../../../../../testing/rcon/vanilla-server.ts';
import { RconClient, RconError } from './client.ts';
import { CommandError, DEFAULT_COMMAND_TEMPLATE, judgeReply, renderCommand } from './command.ts';
import { encodePacket, PacketReader } from './packet.ts';

const stops: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const s of stops.splice(0)) await s();
});

async function vanilla(options: Partial<VanillaRconOptions> = {}) {
  const server = new VanillaRconServer({ password: 'secret', online: ['Steve', 'Alex'], ...options });
  stops.push(() => server.stop());
  await server.start(0);
  return server;
}

const connect = (port: number, password = 'secret', timeoutMs = 2000) =>
  RconClient.connect({ host: '127.0.0.1', port, password, timeoutMs });

async function rejection(p: Promise<unknown>): Promise<RconError> {
  try {
    await p;
  } catch (err) {
    expect(err).toBeInstanceOf(RconError);
    return err as RconError;
  }
  throw new Error('expected a rejection');
}

/**
 * The framing this project's client used before: the command and an end-of-answer marker written
 * together in one write. Kept here (not in src) to show that a vanilla server refuses it.
 */
function oldFramingCommand(port: number, password: string, command: string): Promise<{ answer: string | null; closed: boolean }> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    socket.setNoDelay(true);
    const reader = new PacketReader();
    const parts: string[] = [];
    const done = (answer: string | null, closed: boolean) => {
      socket.destroy();
      resolve({ answer, closed });
    };
    socket.on('error', () => {});
    socket.on('close', () => done(null, true));
    socket.on('data', (chunk) => {
      for (const p of reader.push(chunk)) {
        if (p.id === 1 && p.type === 2) socket.write(Buffer.concat([encodePacket(2, 2, command), encodePacket(3, 0, '')]));
        else if (p.id === 2) parts.push(p.body.toString('utf8'));
        else if (p.id === 3) done(parts.join(''), false);
      }
    });
    socket.once('connect', () => socket.write(encodePacket(1, 3, password)));
  });
}

describe('RCON packets', () => {
  it('encodes size, id, type, body and two NULs, and reads them back from any chunking', () => {
    const buf = encodePacket(7, 2, 'list');
    expect(buf.readInt32LE(0)).toBe(4 + 4 + 4 + 2);
    expect(buf.readInt32LE(4)).toBe(7);
    expect(buf.readInt32LE(8)).toBe(2);
    expect(buf.subarray(12).toString('latin1')).toBe('list\0\0');

    const stream = Buffer.concat([encodePacket(1, 0, 'Привет'), encodePacket(2, 0, ''), encodePacket(-1, 2, '')]);
    const reader = new PacketReader();
    const got = [];
    for (const byte of stream) got.push(...reader.push(Buffer.of(byte)));
    expect(got.map((p) => ({ id: p.id, type: p.type, body: p.body.toString('utf8') }))).toEqual([
      { id: 1, type: 0, body: 'Привет' },
      { id: 2, type: 0, body: '' },
      { id: -1, type: 2, body: '' },
    ]);
  });

  it('refuses an absurd packet size instead of buffering forever', () => {
    const bad = Buffer.alloc(4);
    bad.writeInt32LE(10_000_000, 0);
    expect(() => new PacketReader().push(bad)).toThrow(/размер/);
  });
});

describe('the vanilla-like test server is as strict as Minecraft', () => {
  it('drops a connection whose read holds two packets, without running the command — the old framing delivers nothing', async () => {
    const server = await vanilla();
    const old = await oldFramingCommand(server.port, 'secret', 'give Steve minecraft:diamond 1');
    expect(old).toEqual({ answer: null, closed: true });
    expect(server.commands).toEqual([]);
    // The command (30 bytes of text) and the marker, 58 bytes in one read.
    expect(server.violations).toEqual([{ bytes: 30 + 14 + 14, reason: 'size field 40, read 58 bytes' }]);

    // The new client, against the very same server.
    const client = await connect(server.port);
    expect(await client.command('give Steve minecraft:diamond 1', 2000)).toBe('Gave 1 [Diamond] to Steve');
    client.close();
    expect(server.commands).toEqual(['give Steve minecraft:diamond 1']);
    expect(server.violations).toHaveLength(1);
  });

  it('drops two packets written separately but before the first was answered, and half a packet', async () => {
    const server = await vanilla();
    const send = (writes: Buffer[], gapMs: number) =>
      new Promise<boolean>((resolve) => {
        const socket = net.connect({ host: '127.0.0.1', port: server.port });
        socket.setNoDelay(true);
        socket.on('error', () => {});
        socket.on('close', () => resolve(true));
        socket.on('data', () => {});
        socket.once('connect', async () => {
          for (const w of writes) {
            socket.write(w);
            if (gapMs > 0) await new Promise((r) => setTimeout(r, gapMs));
          }
          setTimeout(() => {
            socket.destroy();
            resolve(false);
          }, 300);
        });
      });
    const login = encodePacket(1, 3, 'secret');
    const command = encodePacket(2, 2, 'give Steve minecraft:stone 1');
    // Login and command in two writes, back to back: the thread finds both in one read.
    expect(await send([login, command], 0)).toBe(true);
    // One packet written in two halves: the first read holds half a packet.
    expect(await send([login.subarray(0, 7), login.subarray(7)], 50)).toBe(true);
    expect(server.commands).toEqual([]);
    expect(server.violations.map((v) => v.bytes)).toEqual([login.length + command.length, 7]);
  });

  it('answers like vanilla: id -1 on a wrong or empty password, "Unknown request" for other types, 4096-character parts', async () => {
    const server = await vanilla({ onCommand: (c) => (c === 'long' ? 'x'.repeat(4096 * 2 + 5) : undefined) });
    const raw = (packets: Buffer[]) =>
      new Promise<{ id: number; type: number; body: string }[]>((resolve) => {
        const socket = net.connect({ host: '127.0.0.1', port: server.port });
        const reader = new PacketReader();
        const got: { id: number; type: number; body: string }[] = [];
        let next = 0;
        const write = () => (next < packets.length ? socket.write(packets[next++]!) : socket.end());
        socket.on('data', (chunk) => {
          for (const p of reader.push(chunk)) got.push({ id: p.id, type: p.type, body: p.body.toString('utf8') });
          // One request at a time, each after the previous answer is complete.
          setTimeout(write, 30);
        });
        socket.on('close', () => resolve(got));
        socket.on('error', () => {});
        socket.once('connect', write);
      });
    expect(await raw([encodePacket(5, 3, 'wrong')])).toEqual([{ id: -1, type: 2, body: '' }]);
    expect(await raw([encodePacket(5, 2, 'list')])).toEqual([{ id: -1, type: 2, body: '' }]);
    const answers = await raw([encodePacket(5, 3, 'secret'), encodePacket(6, 9, ''), encodePacket(7, 2, 'long')]);
    expect(answers.slice(0, 2)).toEqual([
      { id: 5, type: 2, body: '' },
      { id: 6, type: 0, body: 'Unknown request 9' },
    ]);
    expect(answers.slice(2).map((a) => [a.id, a.body.length])).toEqual([
      [7, 4096],
      [7, 4096],
      [7, 5],
    ]);
    const empty = new VanillaRconServer({ password: '' });
    stops.push(() => empty.stop());
    await empty.start(0);
    const err = await rejection(connect(empty.port, ''));
    expect(err.kind).toBe('auth');
  });
});

describe('RCON client against the vanilla-like server', () => {
  it('logs in and runs commands one after another on one connection', async () => {
    const server = await vanilla();
    const client = await connect(server.port);
    expect(await client.command('give Steve minecraft:stone 2', 2000)).toBe('Gave 2 [Stone] to Steve');
    expect(await client.command('list', 2000)).toBe('There are 2 of a max of 20 players online: steve, alex');
    expect(await client.command('say привет', 2000)).toBe('');
    expect(await client.command('give Herobrine minecraft:stone 1', 2000)).toBe('No player was found');
    client.close();
    expect(server.commands).toEqual(['give Steve minecraft:stone 2', 'list', 'say привет', 'give Herobrine minecraft:stone 1']);
    expect(server.logins).toEqual([{ ok: true }]);
    expect(server.connections).toBe(1);
    expect(server.violations).toEqual([]);
  });

  it('assembles a long answer of several 4096-character parts whole, and the next answer is not mixed in', async () => {
    const long = Array.from({ length: 3000 }, (_, i) => `игрок${i}`).join(', ');
    expect(long.length).toBeGreaterThan(3 * 4096);
    const exact = 'y'.repeat(4096);
    const server = await vanilla({
      onCommand: (c) => (c === 'list' ? long : c === 'exact' ? exact : c === 'cyr' ? 'ж'.repeat(2100) : undefined),
    });
    const client = await connect(server.port);
    expect(await client.command('list', 3000)).toBe(long);
    // Exactly one full part: the end marker tells that nothing follows.
    expect(await client.command('exact', 3000)).toBe(exact);
    // Over 4086 bytes but fewer than 4096 characters: whole as it is.
    expect(await client.command('cyr', 3000)).toBe('ж'.repeat(2100));
    expect(await client.command('give Alex minecraft:apple 1', 3000)).toBe('Gave 1 [Apple] to Alex');
    client.close();
    expect(server.violations).toEqual([]);
    expect(server.commands).toEqual(['list', 'exact', 'cyr', 'give Alex minecraft:apple 1']);
  });

  it('reports a wrong password as an auth failure and sends nothing', async () => {
    const server = await vanilla();
    const err = await rejection(connect(server.port, 'wrong'));
    expect(err.kind).toBe('auth');
    expect(err.message).toBe('неверный пароль RCON');
    expect(server.logins).toEqual([{ ok: false }]);
    expect(server.commands).toEqual([]);
  });

  it('reports a server that is down as a connect failure, and an unknown host as such', async () => {
    const server = await vanilla();
    const port = server.port;
    await server.stop();
    const err = await rejection(connect(port));
    expect(err.kind).toBe('connect');
    expect(err.message).toMatch(/отклонено/);
    const dns = await rejection(RconClient.connect({ host: 'no-such-host.invalid', port: 25575, password: 'x', timeoutMs: 3000 }));
    expect(dns.kind).toBe('connect');
    expect(dns.message).toBe('адрес сервера не найден');
  });

  it('keeps the connect deadline when the server accepts but never answers the login', async () => {
    const silent = net.createServer((socket) => socket.resume());
    stops.push(() => new Promise((r) => silent.close(r)));
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', () => r()));
    const started = Date.now();
    const err = await rejection(connect((silent.address() as net.AddressInfo).port, 'secret', 300));
    expect(err.kind).toBe('connect');
    expect(err.message).toBe('нет ответа за 300 мс');
    expect(Date.now() - started).toBeGreaterThanOrEqual(280);
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('marks a command without an answer as noanswer, after the deadline, and closes the connection', async () => {
    const server = await vanilla({ onCommand: () => null });
    const client = await connect(server.port);
    const started = Date.now();
    const err = await rejection(client.command('give Steve minecraft:stone 1', 300));
    expect(err.kind).toBe('noanswer');
    expect(Date.now() - started).toBeGreaterThanOrEqual(280);
    expect(client.closed).toBe(true);
    expect(server.commands).toEqual(['give Steve minecraft:stone 1']);
  });

  it('waits for a slow answer within the deadline', async () => {
    const server = await vanilla({ delayMs: 200 });
    const client = await connect(server.port);
    expect(await client.command('give Steve minecraft:stone 1', 2000)).toBe('Gave 1 [Stone] to Steve');
    client.close();
  });

  it('tells a connection dropped before the command ran from one dropped after', async () => {
    let drop: 'before' | 'after' = 'after';
    const server = await vanilla({ onCommand: () => ({ drop }) });
    const client = await connect(server.port);
    const err = await rejection(client.command('give Steve minecraft:stone 1', 2000));
    // The client cannot tell whether it ran: it may have.
    expect(err.kind).toBe('noanswer');
    expect(server.commands).toEqual(['give Steve minecraft:stone 1']);
    drop = 'before';
    const again = await connect(server.port);
    expect((await rejection(again.command('give Steve minecraft:stone 1', 2000))).kind).toBe('noanswer');
    expect(server.commands).toHaveLength(1);
    // A connection already gone when the command is asked for: nothing was written.
    expect((await rejection(again.command('list', 2000))).kind).toBe('connect');
  });

  it('runs 500 commands a second or more on one connection (no Nagle or delayed-ACK stall)', async () => {
    const server = await vanilla();
    const client = await connect(server.port);
    const started = performance.now();
    for (let i = 0; i < 500; i++) await client.command(`give Steve minecraft:stone ${i + 1}`, 2000);
    const seconds = (performance.now() - started) / 1000;
    client.close();
    expect(server.commands).toHaveLength(500);
    expect(500 / seconds).toBeGreaterThan(500);
  });
});

describe('RCON client against a Source-engine server', () => {
  async function source(options: ConstructorParameters<typeof SourceRconServer>[0]) {
    const server = new SourceRconServer(options);
    stops.push(() => server.stop());
    await server.start(0);
    return server;
  }

  it('accepts its login (an empty RESPONSE_VALUE before the auth answer) and its answers', async () => {
    const server = await source({ password: 'secret', trickle: true });
    const client = await connect(server.port);
    expect(await client.command('status', 3000)).toBe('echo: status');
    expect(await client.command('say второй', 3000)).toBe('echo: say второй');
    client.close();
    expect(server.logins).toEqual([{ ok: true }]);
  });

  it('joins a long answer split at byte boundaries, inside multi-byte characters', async () => {
    const long = 'ёжик '.repeat(3000);
    const server = await source({ password: 'secret', handler: () => long });
    const client = await connect(server.port);
    expect(await client.command('cvarlist', 3000)).toBe(long);
    expect(await client.command('next', 3000)).toBe(long);
    client.close();
  });
});

describe('command templates', () => {
  const values = { player: 'Steve_01', uuid: null, params: { item: 'diamond_sword', quantity: 3, order: 42 } };

  it('fills the default template and every placeholder', () => {
    expect(renderCommand(null, values)).toBe('give Steve_01 minecraft:diamond_sword 3');
    expect(renderCommand('  ', values)).toBe(renderCommand(DEFAULT_COMMAND_TEMPLATE, values));
    expect(renderCommand('eco give {player} {quantity} заказ-{order}', values)).toBe('eco give Steve_01 3 заказ-42');
    expect(renderCommand('lp user {uuid} parent add vip', { ...values, uuid: '5a7f0d0e-4f8e-3c0a-9b52-0d3d3a9f7d11' })).toBe(
      'lp user 5a7f0d0e-4f8e-3c0a-9b52-0d3d3a9f7d11 parent add vip',
    );
    // NBT-like braces in a template stay as written.
    expect(renderCommand('give {player} {item}{display:{Name:"x"}} {quantity}', values)).toBe(
      'give Steve_01 diamond_sword{display:{Name:"x"}} 3',
    );
    expect(
      renderCommand('lp user {player} parent addtemp {tier} {days}d', { player: 'Steve_01', params: { tier: 'vip+', days: 30 } }),
    ).toBe('lp user Steve_01 parent addtemp vip+ 30d');
  });

  it('keeps a namespaced id from getting a second namespace', () => {
    expect(renderCommand(null, { ...values, params: { ...values.params, item: 'mymod:gem' } })).toBe('give Steve_01 mymod:gem 3');
  });

  it('substitutes in one pass, so a value cannot bring in a placeholder', () => {
    expect(renderCommand('say {item} {player}', { ...values, params: { item: 'a' } })).toBe('say a Steve_01');
  });

  it.each([
    ['a newline in the player name', { player: 'Steve\nop Steve' }],
    ['a space in the player name', { player: 'Steve op' }],
    ['a short player name', { player: 'ab' }],
    ['a semicolon in the item id', { params: { ...values.params, item: 'stone;op' } }],
    ['a space in the item id', { params: { ...values.params, item: 'stone 64\nop x' } }],
    ['upper case in the item id', { params: { ...values.params, item: 'Stone' } }],
    ['a zero quantity', { params: { ...values.params, quantity: 0 } }],
    ['a fractional quantity', { params: { ...values.params, quantity: 1.5 } }],
    ['a {uuid} the account does not have', { uuid: null, template: 'lp user {uuid} parent add vip' }],
    ['a space in a free-form value', { template: 'lp user {player} parent add {tier}', params: { tier: 'vip op Steve' } }],
  ])('refuses %s', (_, change) => {
    const { template, ...rest } = { template: null as string | null, ...change };
    expect(() => renderCommand(template, { ...values, ...rest })).toThrow(CommandError);
  });

  it.each(['\n', '\r', '\u0000', '\u0085', '\u2028', '\u2029', '\u200e', '\ufeff', '\ud800'])('refuses a template holding %j', (ch) => {
    expect(() => renderCommand(`give {player} stone 1${ch}op {player}`, values)).toThrow(CommandError);
  });

  it('judges replies: done, refused, player not in the game', () => {
    expect(judgeReply('Gave 3 [Diamond Sword] to Steve_01')).toBe('done');
    expect(judgeReply('')).toBe('done');
    expect(judgeReply('No player was found')).toBe('offline');
    expect(judgeReply("Unknown item 'minecraft:diamond_swrod'")).toBe('failed');
    expect(judgeReply('Unknown or incomplete command, see below for error')).toBe('failed');
    expect(judgeReply('Incorrect argument for command')).toBe('failed');
    expect(judgeReply('Error executing: give x (boom)')).toBe('failed');
  });
});
