import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { builtinModules } from 'node:module';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPgDatabase, dbKinds } from '../test/test-app.ts';
import { freePort } from '../../../../testing/free-port.ts';

const ROOT = path.resolve(import.meta.dirname, '../../../..');
const DIST = path.join(ROOT, 'apps/server/dist');
const NODE_BUILTINS = new Set(builtinModules);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** `npm run build`'s server part, skipped when the sources did not change since the last one. */
function buildServer(): string {
  const res = spawnSync(process.execPath, ['scripts/build.mjs', 'server', 'contract', '--if-changed'], { cwd: ROOT, encoding: 'utf8' });
  expect(res.status, res.stderr).toBe(0);
  return res.stdout;
}

describe('production build', () => {
  beforeAll(() => void buildServer(), 120_000);

  it('bundles the server and its packages into dist/, leaving as imports only what cannot be bundled, and skips an unchanged rebuild', () => {
    for (const f of ['main.js', 'migrate.js', 'admin-create.js', 'check-ledger.js']) expect(existsSync(path.join(DIST, f))).toBe(true);
    const main = readFileSync(path.join(DIST, 'main.js'), 'utf8');
    expect(main).not.toMatch(/from ["'][^"']*\.ts["']/);
    expect(main).not.toContain('tsx');
    // Packages still loaded from node_modules: native addons and those that read their own files.
    const imported = new Set<string>();
    for (const f of readdirSync(DIST).filter((n) => n.endsWith('.js')))
      for (const m of readFileSync(path.join(DIST, f), 'utf8').matchAll(
        /(?:^|[;}\n])import(?:[^;"']*?from)?\s*"([^"]+)"|__require\("([^"]+)"\)|[^.\w]import\("([^"]+)"\)/g,
      )) {
        const name = (m[1] ?? m[2] ?? m[3])!;
        if (!name.startsWith('.') && !name.startsWith('node:'))
          imported.add(
            name
              .split('/')
              .slice(0, name.startsWith('@') ? 2 : 1)
              .join('/'),
          );
      }
    const allowed = [
      'better-sqlite3',
      'better-sqlite3-napi',
      '@node-rs/argon2',
      '@node-rs/bcrypt',
      'sharp',
      'pg-native',
      'pino',
      'thread-stream',
      'cookie',
    ];
    expect([...imported].filter((p) => !allowed.includes(p) && !NODE_BUILTINS.has(p))).toEqual([]);
    // The API docs' packages are inlined with a stand-in for their `yaml`, loaded on first use.
    expect(readFileSync(path.join(DIST, 'main.js'), 'utf8')).toContain('"lazy-yaml:yaml"');
    // zod's messages in Russian alone (esbuild writes non-ASCII as escapes): not in German, say.
    const bundle = readdirSync(DIST)
      .filter((n) => n.endsWith('.js'))
      .map((f) => readFileSync(path.join(DIST, f), 'utf8'))
      .join('\n');
    const asEscaped = (text: string) =>
      [...text].map((c) => (c.charCodeAt(0) < 128 ? c : `\\u${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`)).join('');
    expect(bundle).toContain(asEscaped('Неверный ввод'));
    expect(bundle).not.toContain('"E-Mail-Adresse"');
    expect(buildServer()).toContain('server: up to date');
  });

  it('the compiled contract loads in plain Node under the `compiled` condition', () => {
    const res = spawnSync(
      process.execPath,
      [
        '--conditions=compiled',
        '--input-type=module',
        '-e',
        "const c = await import('@kubik/contract'); console.log(import.meta.resolve('@kubik/contract'), typeof c.Username.parse)",
      ],
      { cwd: path.join(ROOT, 'apps/server'), encoding: 'utf8' },
    );
    expect(res.stderr).toBe('');
    expect(res.stdout).toMatch(/packages\/contract\/dist\/index\.js function/);
  });
});

describe.each(dbKinds)('the built site on %s', (kind) => {
  let dataDir: string;
  let child: ChildProcess | undefined;
  let drop: (() => Promise<void>) | undefined;
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    buildServer();
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'kubik-built-'));
    const pgDb = kind === 'pg' ? await createPgDatabase() : null;
    drop = pgDb?.drop;
    env = {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      DATA_DIR: dataDir,
      DATABASE_URL: pgDb?.url ?? '',
      LOG_LEVEL: 'info',
      LOG_FORMAT: 'json',
      WEB_DIST: dataDir,
    };
  }, 120_000);
  afterAll(async () => {
    child?.kill('SIGKILL');
    await drop?.();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('npm run migrate applies the migrations once, then finds nothing to do', () => {
    const first = spawnSync(process.execPath, [path.join(DIST, 'migrate.js')], { env, encoding: 'utf8' });
    expect(first.status, first.stderr).toBe(0);
    expect(first.stdout).toMatch(/^Миграции применены \(\d+\): /);
    const again = spawnSync(process.execPath, [path.join(DIST, 'migrate.js')], { env, encoding: 'utf8' });
    expect(again.stdout).toContain('Миграции: база уже в актуальном состоянии.');
  });

  it('runs with plain node (no loader) and answers', async () => {
    const port = await freePort();
    child = spawn(process.execPath, [path.join(DIST, 'main.js')], {
      env: { ...env, PORT: String(port), HOST: '127.0.0.1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
    const deadline = Date.now() + 30_000;
    for (;;) {
      const res = await fetch(`http://127.0.0.1:${port}/api/site`).catch(() => null);
      if (res?.ok) {
        expect(((await res.json()) as { name: string }).name).toBe('Kubik');
        break;
      }
      if (Date.now() > deadline) throw new Error(`the built site did not start:\n${output}`);
      await sleep(100);
    }
    // libuv's pool (password hashes) below the main thread in the CPU's queue, at POOL_THREADS_NICE's
    // default; V8's threads and the main one as they were (lib/pool-threads.ts).
    if (process.platform === 'linux') {
      const threads = readdirSync(`/proc/${child.pid}/task`).map((tid) => {
        const stat = readFileSync(`/proc/${child!.pid}/task/${tid}/stat`, 'utf8');
        const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
        return { main: tid === String(child!.pid), name, nice: Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]) };
      });
      const lowered = threads.filter((t) => t.nice === 10);
      expect(lowered).toHaveLength(4);
      expect(threads.filter((t) => t.nice !== 10 && t.nice !== 0)).toEqual([]);
      expect(threads.find((t) => t.main)?.nice).toBe(0);
      // Node 22 and 24 name them; Node 20's are the last four it started.
      if (threads.some((t) => t.name === 'libuv-worker')) expect(lowered.map((t) => t.name)).toEqual(Array(4).fill('libuv-worker'));
    }
    // The API description, also in YAML (its `yaml` loaded only now), and the docs' pages, which
    // lie in swagger-ui's folder in node_modules, not beside the bundle.
    const page = await fetch(`http://127.0.0.1:${port}/api/docs`);
    expect(await page.text()).toContain('/api/docs/static/swagger-initializer.js');
    for (const file of ['swagger-ui-bundle.js', 'swagger-initializer.js'])
      expect((await fetch(`http://127.0.0.1:${port}/api/docs/static/${file}`)).status).toBe(200);
    const json = await fetch(`http://127.0.0.1:${port}/api/docs/json`);
    expect(((await json.json()) as { openapi: string }).openapi).toMatch(/^3\./);
    const yaml = await fetch(`http://127.0.0.1:${port}/api/docs/yaml`);
    expect(yaml.status).toBe(200);
    expect(await yaml.text()).toMatch(/^openapi: 3\.[\s\S]*\/api\/user\/login:/m);
    // Production logs: one JSON object per line; the answer's X-Request-Id names its line.
    const answer = await fetch(`http://127.0.0.1:${port}/api/site?probe=1`);
    const id = answer.headers.get('x-request-id');
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-z]+$/);
    // The same URL again is answered from memory: no line each, one summary, written on the way out.
    for (let i = 0; i < 2; i++) await (await fetch(`http://127.0.0.1:${port}/api/site?probe=1`)).arrayBuffer();
    const exited = new Promise<number | null>((resolve) => child!.on('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    const lines = output
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines.find((l) => l.reqId === id)).toMatchObject({
      level: 30,
      method: 'GET',
      url: '/api/site?probe=1',
      status: 200,
      msg: expect.stringMatching(/^GET \/api\/site\?probe=1 200 [\d.]+ ms$/),
    });
    expect(lines.filter((l) => l.url === '/api/site?probe=1').map(({ reqId, fromMemory }) => ({ reqId, fromMemory }))).toEqual([
      { reqId: id, fromMemory: undefined },
      { reqId: undefined, fromMemory: 2 },
    ]);
  }, 60_000);
});
