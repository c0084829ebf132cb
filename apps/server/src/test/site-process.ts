import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import path from 'node:path';

export const REPO_ROOT = path.resolve(import.meta.dirname, '../../../..');

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The production build of the server (`npm start` does the same), skipped when the sources did not change. */
export function buildServer(): void {
  const res = spawnSync(process.execPath, ['scripts/build.mjs', 'server', '--if-changed', '--quiet'], { cwd: REPO_ROOT, encoding: 'utf8' });
  if (res.status !== 0) throw new Error(`the server build failed: ${res.stderr}`);
}

/**
 * The site as a child process, the way a server runs it (`npm run serve`: node
 * apps/server/dist/main.js; call buildServer() first), for tests that must kill it for real
 * (SIGKILL) or put a proxy in front of it. Ready when GET /readyz answers 200.
 */
export class SiteProcess {
  private child: ChildProcess | null = null;
  readonly log: string[] = [];
  readonly url: string;

  constructor(
    readonly port: number,
    private readonly env: NodeJS.ProcessEnv,
  ) {
    this.url = `http://127.0.0.1:${port}`;
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** True once the process has ended on its own (or was never started). */
  get exited(): boolean {
    return !this.child || this.child.exitCode !== null || this.child.signalCode !== null;
  }

  /** Starts the process; ready() waits until it answers. */
  spawn(): void {
    const child = spawn(process.execPath, ['apps/server/dist/main.js'], {
      cwd: REPO_ROOT,
      env: { ...this.env, PORT: String(this.port), HOST: '127.0.0.1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child = child;
    const keep = (chunk: Buffer) => {
      this.log.push(...chunk.toString().split('\n').filter(Boolean));
      if (this.log.length > 200) this.log.splice(0, this.log.length - 200);
    };
    child.stdout!.on('data', keep);
    child.stderr!.on('data', keep);
  }

  async ready(timeoutMs = 90_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const child = this.child;
      if (!child || child.exitCode !== null)
        throw new Error(`site on ${this.port} exited with ${child?.exitCode}:\n${this.log.slice(-20).join('\n')}`);
      try {
        const res = await fetch(`${this.url}/readyz`, { signal: AbortSignal.timeout(5000) });
        if (res.ok) return;
      } catch {
        // not listening yet
      }
      if (Date.now() > deadline)
        throw new Error(`site on ${this.port} did not start in ${timeoutMs / 1000} s:\n${this.log.slice(-20).join('\n')}`);
      await sleep(150);
    }
  }

  /** Sends the signal and waits for the process to end (SIGTERM: a graceful shutdown). */
  async stop(signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
    const child = this.child;
    this.child = null;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill(signal);
    const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    await exited;
    clearTimeout(timer);
  }
}
