import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { RconClient, RconError } from './client.ts';
import { CommandError, DEFAULT_COMMAND_TEMPLATE, judgeReply, renderCommand } from './command.ts';
import { encodePacket, PacketReader } from './packet.ts';
import { TestRconServer } from './test-server.ts';

const servers: TestRconServer[] = [];
const others: net.Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.stop();
  for (const s of others.splice(0)) await new Promise((r) => s.close(r));
});

async function rcon(options: ConstructorParameters<typeof TestRconServer>[0]) {
  const server = new TestRconServer(options);
  servers.push(server);
  await server.start(0);
  return server;
}

const connect = (port: number, password = 'secret', timeoutMs = 2000) => RconClient.connect({ host: '127.0.0.1', port, password, timeoutMs });

async function rejection(p: Promise<unknown>): Promise<RconError> {
  try {
    await p;
  } catch (err) {
    expect(err).toBeInstanceOf(RconError);
    return err as RconError;
  }
  throw new Error('expected a rejection');
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
    expect(got).toEqual([
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

describe('RCON client against a test server', () => {
  it('logs in and runs a command', async () => {
    const server = await rcon({ password: 'secret' });
    const client = await connect(server.port);
    expect(await client.command('give Steve minecraft:stone 2', 2000)).toBe('Gave 2 [minecraft:stone] to Steve');
    expect(await client.command('list', 2000)).toBe('Unknown or incomplete command, see below for error');
    client.close();
    expect(server.commands).toEqual(['give Steve minecraft:stone 2', 'list']);
    expect(server.logins).toEqual([{ ok: true }]);
  });

  it('accepts Source-style login (an empty RESPONSE_VALUE before the auth answer)', async () => {
    const server = await rcon({ password: 'secret', sourceStyleAuth: true });
    const client = await connect(server.port);
    expect(await client.command('give Alex minecraft:apple 1', 2000)).toBe('Gave 1 [minecraft:apple] to Alex');
    client.close();
  });

  it('reports a wrong password as an auth failure and sends nothing', async () => {
    const server = await rcon({ password: 'secret' });
    const err = await rejection(connect(server.port, 'wrong'));
    expect(err.kind).toBe('auth');
    expect(server.logins).toEqual([{ ok: false }]);
    expect(server.commands).toEqual([]);
  });

  it('reports a server that is down as a connect failure', async () => {
    const server = await rcon({ password: 'secret' });
    const port = server.port;
    await server.stop();
    const err = await rejection(connect(port));
    expect(err.kind).toBe('connect');
    expect(err.message).toMatch(/отклонено/);
  });

  it('keeps the connect deadline when the server accepts but never answers the login', async () => {
    // It reads (so it notices the close) but never answers.
    const silent = net.createServer((socket) => socket.resume());
    others.push(silent);
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', () => r()));
    const started = Date.now();
    const err = await rejection(connect((silent.address() as net.AddressInfo).port, 'secret', 300));
    expect(err.kind).toBe('connect');
    expect(Date.now() - started).toBeGreaterThanOrEqual(280);
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('marks a command without an answer as noanswer, after the deadline, and closes the connection', async () => {
    const server = await rcon({ password: 'secret', handler: () => null });
    const client = await connect(server.port);
    const started = Date.now();
    const err = await rejection(client.command('give Steve minecraft:stone 1', 300));
    expect(err.kind).toBe('noanswer');
    expect(Date.now() - started).toBeGreaterThanOrEqual(280);
    expect(client.closed).toBe(true);
    expect(server.commands).toEqual(['give Steve minecraft:stone 1']);
  });

  it('marks a connection dropped after the command as noanswer', async () => {
    const server = await rcon({ password: 'secret', handler: () => null });
    const client = await connect(server.port);
    const pending = client.command('give Steve minecraft:stone 1', 5000);
    await new Promise((r) => setTimeout(r, 50));
    await server.stop();
    const err = await rejection(pending);
    expect(err.kind).toBe('noanswer');
  });

  it('joins an answer split over several packets (Minecraft splits at 4096 characters)', async () => {
    const long = Array.from({ length: 3000 }, (_, i) => `игрок${i}`).join(', ');
    expect(long.length).toBeGreaterThan(3 * 4096);
    const server = await rcon({ password: 'secret', handler: () => long });
    const client = await connect(server.port);
    expect(await client.command('list', 2000)).toBe(long);

    const small = await rcon({ password: 'secret', chunkSize: 7, trickle: true, handler: (c) => `echo: ${c} — готово` });
    const c2 = await connect(small.port);
    expect(await c2.command('say привет всем', 3000)).toBe('echo: say привет всем — готово');
    // The next command's answer is not mixed with the previous one's.
    expect(await c2.command('say второй', 3000)).toBe('echo: say второй — готово');
    client.close();
    c2.close();
  });

  it('still takes the answer from a server that ignores the end marker', async () => {
    const server = await rcon({ password: 'secret', ignoreUnknownTypes: true, chunkSize: 5, handler: () => 'Gave 1 [x] to Steve' });
    const client = await connect(server.port);
    expect(await client.command('give Steve minecraft:x 1', 800)).toBe('Gave 1 [x] to Steve');
    client.close();
  });
});

describe('command templates', () => {
  const values = { player: 'Steve_01', item: 'diamond_sword', quantity: 3, order: 42 };

  it('fills the default template and every placeholder', () => {
    expect(renderCommand(null, values)).toBe('give Steve_01 minecraft:diamond_sword 3');
    expect(renderCommand('  ', values)).toBe(renderCommand(DEFAULT_COMMAND_TEMPLATE, values));
    expect(renderCommand('eco give {player} {quantity} # заказ {order} {unknown}', values)).toBe('eco give Steve_01 3 # заказ 42 {unknown}');
    // NBT-like braces in a template stay as written.
    expect(renderCommand('give {player} {item}{display:{Name:"x"}} {quantity}', values)).toBe('give Steve_01 diamond_sword{display:{Name:"x"}} 3');
  });

  it('keeps a namespaced id from getting a second namespace', () => {
    expect(renderCommand(null, { ...values, item: 'mymod:gem' })).toBe('give Steve_01 mymod:gem 3');
  });

  it('substitutes in one pass, so a value cannot bring in a placeholder', () => {
    expect(renderCommand('say {item} {player}', { ...values, item: 'a' })).toBe('say a Steve_01');
  });

  it.each([
    ['a newline in the player name', { player: 'Steve\nop Steve' }],
    ['a space in the player name', { player: 'Steve op' }],
    ['a short player name', { player: 'ab' }],
    ['a semicolon in the item id', { item: 'stone;op' }],
    ['a space in the item id', { item: 'stone 64\nop x' }],
    ['upper case in the item id', { item: 'Stone' }],
    ['a zero quantity', { quantity: 0 }],
    ['a fractional quantity', { quantity: 1.5 }],
  ])('refuses %s', (_, change) => {
    expect(() => renderCommand(null, { ...values, ...change })).toThrow(CommandError);
  });

  it('refuses a template with a newline or a control character', () => {
    expect(() => renderCommand('give {player} stone 1\nop {player}', values)).toThrow(CommandError);
    expect(() => renderCommand('give {player}\u0000', values)).toThrow(CommandError);
  });

  it('judges replies: done, refused, player not in the game', () => {
    expect(judgeReply('Gave 3 [Diamond Sword] to Steve_01')).toBe('done');
    expect(judgeReply('')).toBe('done');
    expect(judgeReply('No player was found')).toBe('offline');
    expect(judgeReply('Unknown item: minecraft:diamond_swrod')).toBe('failed');
    expect(judgeReply('Unknown or incomplete command, see below for error')).toBe('failed');
    expect(judgeReply('Incorrect argument for command')).toBe('failed');
  });
});
