import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createPgDatabase, dbKinds } from '../test/test-app.ts';
import { freePort } from '../../../../testing/free-port.ts';

const serverDir = path.resolve(import.meta.dirname, '../..');

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe.each(dbKinds)('graceful shutdown of the real process on %s', (kind) => {
  let child: ChildProcess | undefined;
  const cleanups: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    child?.kill('SIGKILL');
    for (const c of cleanups.splice(0)) await c();
  });

  /** The site from its sources on `port` (the database fresh for this test); its output is collected. */
  async function startMain(port: number, env: Record<string, string> = {}) {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'kubik-shutdown-'));
    cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
    const pgDb = kind === 'pg' ? await createPgDatabase() : null;
    if (pgDb) cleanups.push(pgDb.drop);
    const started = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
      cwd: serverDir,
      env: {
        ...process.env,
        PORT: String(port),
        HOST: '127.0.0.1',
        DATA_DIR: dataDir,
        DATABASE_URL: pgDb?.url ?? '',
        LOG_LEVEL: 'info',
        WEB_DIST: dataDir,
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child = started;
    const out = { text: '' };
    started.stdout!.on('data', (d: Buffer) => (out.text += d.toString()));
    started.stderr!.on('data', (d: Buffer) => (out.text += d.toString()));
    const exited = new Promise<number | null>((resolve) => started.on('exit', (code) => resolve(code)));
    return { site: started, out, exited };
  }

  it('a port already in use: one log line says which, and the process exits 1', async () => {
    const holder = net.createServer();
    await new Promise<void>((r) => holder.listen(0, '127.0.0.1', () => r()));
    cleanups.push(() => void holder.close());
    const port = (holder.address() as net.AddressInfo).port;
    const { out, exited } = await startMain(port);
    const code = await Promise.race([
      exited,
      sleep(30_000).then(() => Promise.reject(new Error(`still running 30 s after failing to listen:\n${out.text}`))),
    ]);
    expect(code).toBe(1);
    expect(out.text).toContain(`cannot listen on 127.0.0.1:${port}`);
    expect(out.text).toContain('EADDRINUSE');
  });

  it('on SIGTERM stops accepting, finishes the request in flight, and exits 0', async () => {
    const port = await freePort();
    const { site, out, exited } = await startMain(port, { SHUTDOWN_TIMEOUT_SEC: '5' });
    const deadline = Date.now() + 20_000;
    while (!out.text.includes('Server listening')) {
      if (Date.now() > deadline) throw new Error(`the site did not start:\n${out.text}`);
      await sleep(50);
    }

    // A slow client: the headers and half the body now, the rest after the signal.
    const body = JSON.stringify({ username: 'Nobody', password: 'password123' });
    const socket = net.connect(port, '127.0.0.1');
    await new Promise((r) => socket.once('connect', r));
    let answer = '';
    socket.on('data', (d: Buffer) => (answer += d.toString()));
    socket.write(
      `POST /api/user/login HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body.slice(0, 10)}`,
    );
    await sleep(200);

    site.kill('SIGTERM');
    await sleep(500);
    // No new connections once shutting down.
    const refused = await new Promise<boolean>((resolve) => {
      const probe = net.connect(port, '127.0.0.1');
      probe.once('connect', () => {
        probe.destroy();
        resolve(false);
      });
      probe.once('error', () => resolve(true));
    });
    expect(refused).toBe(true);

    socket.write(body.slice(10));
    const finishing = performance.now();
    const code = await exited;
    expect(answer).toMatch(/^HTTP\/1\.1 401 /);
    expect(answer).toContain('Неверное имя пользователя или пароль');
    expect(code).toBe(0);
    // Not held up by the idle keep-alive connection until SHUTDOWN_TIMEOUT_SEC.
    expect(performance.now() - finishing).toBeLessThan(3000);
    expect(out.text).toContain('SIGTERM: shutting down');
  });
});
