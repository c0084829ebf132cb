import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FastifyBaseLogger } from 'fastify';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { buildApp } from '../app.ts';
import { loadConfig } from '../config.ts';
import { openDatabase } from '../db/index.ts';
import { migrateToLatest } from '../db/migrate.ts';
import { createTestApp, type TestApp } from '../test/test-app.ts';
import { accessLogger, formatPretty, memoryAnswerLog } from './logging.ts';

describe('request ids', () => {
  let t: TestApp;

  it('every answer carries X-Request-Id, errors included, each one different', async () => {
    t = await createTestApp('sqlite', { workers: false });
    try {
      const ids = new Set<string>();
      for (const url of ['/api/site', '/api/site', '/api/no-such', '/api/user/me']) {
        const res = await t.app.inject({ method: 'GET', url });
        const id = res.headers['x-request-id'];
        expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-z]+$/);
        ids.add(String(id));
      }
      expect(ids.size).toBe(4);
      // Without a trusted proxy, a client cannot choose its id.
      const res = await t.app.inject({ method: 'GET', url: '/api/site', headers: { 'x-request-id': 'chosen-by-client' } });
      expect(res.headers['x-request-id']).not.toBe('chosen-by-client');
    } finally {
      await t.close();
    }
  });

  it("behind a trusted proxy the proxy's id is kept (when it looks like one)", async () => {
    t = await createTestApp('sqlite', { workers: false, trustProxy: true });
    try {
      expect(
        (await t.app.inject({ method: 'GET', url: '/api/site', headers: { 'x-request-id': 'b1946ac92492d2347c6235b4d2611184' } })).headers[
          'x-request-id'
        ],
      ).toBe('b1946ac92492d2347c6235b4d2611184');
      expect(
        (await t.app.inject({ method: 'GET', url: '/api/site', headers: { 'x-request-id': 'bad id\nINFO forged' } })).headers[
          'x-request-id'
        ],
      ).toMatch(/^[0-9a-f]{8}-/);
    } finally {
      await t.close();
    }
  });
});

describe('request ids in the log', () => {
  /** The calls below against a listening site at `level`: each answer's id, and every log line (after close). */
  async function logOf(level: 'info' | 'debug') {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'kubik-log-'));
    const config = loadConfig(
      {},
      {
        dataDir,
        sqlitePath: path.join(dataDir, 'k.sqlite'),
        logLevel: level,
        logFormat: 'json',
        workers: false,
        publicUrl: 'http://kubik.test',
      },
    );
    const handle = openDatabase(config);
    await migrateToLatest(handle);
    const lines: Record<string, unknown>[] = [];
    const app = await buildApp(config, {
      database: handle,
      logStream: {
        write: (text) =>
          void lines.push(
            ...text
              .split('\n')
              .filter(Boolean)
              .map((l) => JSON.parse(l) as Record<string, unknown>),
          ),
      },
    });
    const ids: string[] = [];
    try {
      await app.listen({ port: 0, host: '127.0.0.1' });
      const base = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
      const calls: [string, RequestInit?][] = [
        // The first news is Fastify's; the next two come from memory.
        ['/api/tidings/news'],
        ['/api/tidings/news'],
        ['/api/tidings/news'],
        ['/api/no-such'],
        ['/api/user/me'],
        ['/api/user/login', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"username":' }],
      ];
      for (const [url, init] of calls) {
        const res = await fetch(`${base}${url}`, init);
        await res.arrayBuffer();
        ids.push(res.headers.get('x-request-id') ?? '');
      }
      expect(new Set(ids).size).toBe(calls.length);
      // Access lines go out at most 50 ms after their answer.
      await new Promise((r) => setTimeout(r, 150));
    } finally {
      await app.close();
      await handle.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
    return { ids, lines, aboutRequests: lines.filter((l) => 'reqId' in l) };
  }

  it('at debug every answer has its line with its own id, answers from memory included', async () => {
    const { ids, aboutRequests } = await logOf('debug');
    for (const id of ids) expect(aboutRequests.filter((l) => l.reqId === id && 'status' in l).length, id).toBe(1);
    // … and no line about a request lacks one or names another.
    for (const l of aboutRequests) expect(ids, JSON.stringify(l)).toContain(l.reqId);
  });

  it('at info answers from memory are summed up per URL; every other answer has its line with its own id', async () => {
    const { ids, lines, aboutRequests } = await logOf('info');
    const [first, fromMemory1, fromMemory2, ...others] = ids;
    for (const id of [first!, ...others]) expect(aboutRequests.filter((l) => l.reqId === id && 'status' in l).length, id).toBe(1);
    for (const id of [fromMemory1!, fromMemory2!])
      expect(
        aboutRequests.filter((l) => l.reqId === id),
        id,
      ).toEqual([]);
    for (const l of aboutRequests) expect(ids, JSON.stringify(l)).toContain(l.reqId);
    // Closing writes what was counted: one line for the news, with both answers from memory.
    const summaries = lines.filter((l) => 'fromMemory' in l);
    expect(summaries).toHaveLength(1);
    expect(summaries[0]).toMatchObject({ level: 30, method: 'GET', url: '/api/tidings/news', status: 200, fromMemory: 2 });
    expect(summaries[0]!.msg).toMatch(/^GET \/api\/tidings\/news 200 ×2 from memory in 1 s, up to \d+\.\d ms$/);
  });
});

describe('the access log', () => {
  const capture = (level = 'info') => {
    const writes: string[] = [];
    const log = pino({ level }, { write: (text: string) => void writes.push(text) });
    return { writes, log: log as unknown as FastifyBaseLogger };
  };
  const untimed = (text: string) => text.replace(/"time":\d+/g, '"time":0');

  it('writes, byte for byte, the line pino writes for the same fields, whatever the URL holds', async () => {
    const cases: [string, string, string, number, number][] = [
      ['ab12cd34-1', 'GET', '/api/user/me', 200, 0.4321],
      ['ab12cd34-2', 'POST', '/api/user/login', 429, 12.05],
      ['b1946ac92492d2347c6235b4d2611184', 'GET', '/api/search?q="a\\b"&x=%22', 404, 3],
      ['ab12cd34-3', 'GET', '/новости/тест?🙂=1', 200, 1999.95],
      ['ab12cd34-4', 'GET', '/a\u0000b\u001fc\u007f\u2028', 400, 0],
      ['ab12cd34-5', 'HEAD', '', 500, Number.NaN],
      // 1.45 is 1.4499… as a double: toFixed(1) says 1.4, the rounded tenths 1.5, and the message follows the field.
      ['ab12cd34-6', 'GET', '/api/tidings/news', 200, 1.45],
      ['ab12cd34-7', 'DELETE', '/api/servers/7', 204, 0.04],
      ['ab12cd34-8', 'GET', '/a b', 200, 86_400_000 * 3],
      ['ab12cd34-9', 'GET', '/', 304, 99.96],
    ];
    const ours = capture();
    const theirs = capture();
    const access = accessLogger(ours.log, { logLevel: 'info', logFormat: 'json' })!;
    for (const [reqId, method, url, status, ms] of cases) {
      access.write(reqId, method, url, status, ms);
      const tenths = Math.round(ms * 10) / 10;
      theirs.log.info({ reqId, method, url, status, ms: tenths }, `${method} ${url} ${status} ${tenths.toFixed(1)} ms`);
    }
    // Nothing yet: the answers of the next 50 ms go out together, in one write.
    expect(ours.writes).toEqual([]);
    await new Promise((r) => setTimeout(r, 80));
    expect(ours.writes).toHaveLength(1);
    expect(untimed(ours.writes[0]!)).toBe(untimed(theirs.writes.join('')));
    for (const line of ours.writes[0]!.trimEnd().split('\n')) expect(() => JSON.parse(line) as unknown).not.toThrow();
  });

  it('matches pino for thousands of made-up lines, the usual template and the general way alike', async () => {
    // A fixed-seed generator: the same lines on every run.
    let seed = 29;
    const next = (n: number) => {
      seed = (Math.imul(seed, 1_103_515_245) + 12_345) >>> 0;
      return (seed >>> 8) % n;
    };
    const chars = 'az09/?=&%-._~:"\\\u0001\u007fж ';
    const textOf = (length: number, odd: boolean) =>
      Array.from({ length }, () => (odd && next(8) === 0 ? chars[next(chars.length)] : chars[next(12)])).join('');
    const durations = () => [next(10), next(100) / 100, next(1_000_000) / 7, 2 ** 31 / 10 - next(3), next(2) ? 1e12 : 0.05][next(5)]!;
    const ours = capture();
    const theirs = capture();
    const access = accessLogger(ours.log, { logLevel: 'info', logFormat: 'json' })!;
    for (let i = 0; i < 3000; i++) {
      const odd = next(4) === 0;
      // Ids are plain by construction (requestIds: ours, or a trusted proxy's of [A-Za-z0-9._:-]).
      const reqId = next(20) === 0 ? `nginx.${i}:_-Z` : `ab12cd34-${i.toString(36)}`;
      const method = ['GET', 'POST', 'HEAD', 'DELETE'][next(4)]!;
      const url = `/${textOf(next(60), odd)}`;
      const status = [200, 204, 301, 404, 429, 500, 503][next(7)]!;
      const ms = durations();
      access.write(reqId, method, url, status, ms);
      const tenths = Math.round(ms * 10) / 10;
      theirs.log.info({ reqId, method, url, status, ms: tenths }, `${method} ${url} ${status} ${tenths.toFixed(1)} ms`);
    }
    await access.flush();
    expect(untimed(ours.writes.join(''))).toBe(untimed(theirs.writes.join('')));
  });

  it('a host name beyond ASCII reaches the line whole', async () => {
    const writes: string[] = [];
    const log = pino({ level: 'info', base: { pid: 7, hostname: 'сервер-1' } }, { write: (text: string) => void writes.push(text) });
    const access = accessLogger(log as unknown as FastifyBaseLogger, { logLevel: 'info', logFormat: 'json' })!;
    access.write('x-1', 'GET', '/api/user/me', 200, 0.4);
    await access.flush();
    expect(JSON.parse(writes[0]!)).toMatchObject({ hostname: 'сервер-1', reqId: 'x-1', ms: 0.4, msg: 'GET /api/user/me 200 0.4 ms' });
  });

  it('more than one batch, and a line longer than a batch: every line whole, in order', async () => {
    const { writes, log } = capture();
    const access = accessLogger(log, { logLevel: 'info', logFormat: 'json' })!;
    const long = `/${'\u0001ж'.repeat(20_000)}`;
    const urls = Array.from({ length: 600 }, (_, i) => (i === 300 ? long : `/api/news?page=${i}`));
    for (const [i, url] of urls.entries()) access.write(`x-${i}`, 'GET', url, 200, 1);
    await access.flush();
    expect(writes.length).toBeGreaterThan(2);
    const lines = writes.join('').trimEnd().split('\n');
    expect(lines.map((l) => (JSON.parse(l) as { url: string }).url)).toEqual(urls);
  });

  it('flush writes what is pending at once (on close), and nothing when nothing is', async () => {
    const { writes, log } = capture();
    const access = accessLogger(log, { logLevel: 'debug', logFormat: 'json' })!;
    await access.flush();
    access.write('x-1', 'GET', '/', 200, 1);
    access.write('x-2', 'GET', '/', 200, 1);
    await access.flush();
    expect(writes).toHaveLength(1);
    expect(writes[0]!.split('\n')).toHaveLength(3);
    await new Promise((r) => setTimeout(r, 80));
    expect(writes).toHaveLength(1);
  });

  it('is off above info; pretty lines go through pino one by one', () => {
    expect(accessLogger(capture('warn').log, { logLevel: 'warn', logFormat: 'json' })).toBeNull();
    const { writes, log } = capture();
    accessLogger(log, { logLevel: 'info', logFormat: 'pretty' })!.write('x-1', 'GET', '/api/site', 200, 1.25);
    expect(writes).toHaveLength(1);
    expect(JSON.parse(writes[0]!)).toMatchObject({ reqId: 'x-1', url: '/api/site', status: 200, ms: 1.3, msg: 'GET /api/site 200 1.3 ms' });
  });
});

describe('answers from memory in the log', () => {
  const capture = (level = 'info') => {
    const lines: Record<string, unknown>[] = [];
    const log = pino({ level }, { write: (text: string) => void lines.push(JSON.parse(text) as Record<string, unknown>) });
    return { lines, log: log as unknown as FastifyBaseLogger };
  };

  it('sums them up per URL once per period: count, longest and mean time', async () => {
    const { lines, log } = capture();
    const memory = memoryAnswerLog(log, { logLevel: 'info' }, 60)!;
    memory.count('/api/tidings/news', 0.12);
    memory.count('/api/tidings/news', 0.46);
    memory.count('/api/user/me', 0.2);
    expect(lines).toEqual([]);
    await new Promise((r) => setTimeout(r, 120));
    expect(
      lines.map(({ level, method, url, status, fromMemory, maxMs, avgMs, msg }) => ({
        level,
        method,
        url,
        status,
        fromMemory,
        maxMs,
        avgMs,
        msg,
      })),
    ).toEqual([
      {
        level: 30,
        method: 'GET',
        url: '/api/tidings/news',
        status: 200,
        fromMemory: 2,
        maxMs: 0.5,
        avgMs: 0.29,
        msg: 'GET /api/tidings/news 200 ×2 from memory in 1 s, up to 0.5 ms',
      },
      {
        level: 30,
        method: 'GET',
        url: '/api/user/me',
        status: 200,
        fromMemory: 1,
        maxMs: 0.2,
        avgMs: 0.2,
        msg: 'GET /api/user/me 200 ×1 from memory in 1 s, up to 0.2 ms',
      },
    ]);
    // A quiet period writes nothing; the next answer starts a new one.
    await new Promise((r) => setTimeout(r, 120));
    expect(lines).toHaveLength(2);
    memory.count('/api/servers/', 3);
    await memory.flush();
    expect(lines[2]).toMatchObject({ url: '/api/servers/', fromMemory: 1, maxMs: 3 });
    await memory.flush();
    expect(lines).toHaveLength(3);
  });

  it('counts at most a thousand URLs of up to 512 characters on their own, the rest together', async () => {
    const { lines, log } = capture();
    const memory = memoryAnswerLog(log, { logLevel: 'info' })!;
    memory.count(`/api/tidings/news?q=${'x'.repeat(500)}`, 1);
    for (let i = 0; i < 1500; i++) memory.count(`/api/tidings/news?page=${i}`, 1);
    memory.count('/api/tidings/news?page=0', 1);
    await memory.flush();
    // The long one first took `(other)`'s place among the thousand: pages 0–998 on their own.
    expect(lines).toHaveLength(1000);
    expect(lines.find((l) => l.url === '/api/tidings/news?page=0')).toMatchObject({ fromMemory: 2 });
    expect(lines.find((l) => l.url === '(other)')).toMatchObject({ fromMemory: 502 });
    expect(lines.every((l) => String(l.url).length <= 512)).toBe(true);
  });

  it('is only for info: at debug each answer has its own line, above info none', () => {
    expect(memoryAnswerLog(capture('debug').log, { logLevel: 'debug' })).toBeNull();
    expect(memoryAnswerLog(capture('warn').log, { logLevel: 'warn' })).toBeNull();
  });
});

describe('pretty log lines', () => {
  const time = new Date(2026, 10, 23, 5, 6, 7).getTime();

  it('time, level, request id, message and the other fields on one line', () => {
    const line = formatPretty(
      JSON.stringify({
        level: 30,
        time,
        pid: 1,
        hostname: 'h',
        reqId: 'ab12-3',
        method: 'GET',
        url: '/api/site',
        status: 200,
        ms: 1.5,
        msg: 'GET /api/site 200 1.5 ms',
      }),
      false,
    );
    expect(line).toBe('05:06:07 INFO  [ab12-3] GET /api/site 200 1.5 ms method=GET url=/api/site status=200 ms=1.5\n');
  });

  it("a letter's link (mail without SMTP) on a line of its own; an error's stack indented below", () => {
    const mail = formatPretty(
      JSON.stringify({
        level: 30,
        time,
        to: 'steve@example.com',
        link: 'http://localhost:3000/confirm?token=abc',
        msg: 'Письмо «Подтверждение почты» сохранено в файл; ссылка: http://localhost:3000/confirm?token=abc',
      }),
      false,
    );
    expect(mail.split('\n')).toEqual([
      '05:06:07 INFO  Письмо «Подтверждение почты» сохранено в файл to=steve@example.com',
      '    ссылка из письма: http://localhost:3000/confirm?token=abc',
      '',
    ]);
    const err = formatPretty(
      JSON.stringify({
        level: 50,
        time,
        err: { type: 'Error', message: 'boom', stack: 'Error: boom\n    at x (a.ts:1)' },
        msg: 'unhandled error',
      }),
      false,
    );
    expect(err).toBe('05:06:07 ERROR unhandled error\n    Error: boom\n        at x (a.ts:1)\n');
  });

  it('colours levels only for a terminal; passes through what is not JSON', () => {
    expect(formatPretty(JSON.stringify({ level: 40, time, msg: 'x' }), true)).toContain('\x1b[33mWARN \x1b[0m');
    expect(formatPretty('plain text', false)).toBe('plain text\n');
  });
});
