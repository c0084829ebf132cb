/**
 * Instructions per answer, counted by valgrind's callgrind: the site and the bare server, each run
 * under valgrind, answering the same request from the same load. On a shared two-core machine the
 * throughput ratio and the CPU time per answer move by a tenth between runs of the same code (the
 * bare server's own rate moved 8–53k req/s between sessions); an instruction count moves by about
 * one per cent, so a change on the request path shows here when the other figures cannot tell it
 * from noise. It counts user space only (the kernel's share, a third of an answer here, is the
 * same for both) and every thread (V8's collectors and compilers, libuv's pool); it does not see
 * what caches and memory add to each instruction, which the CPU figure does.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { capture, startBare } from './bare.ts';
import { freePort } from '../testing/free-port.ts';

const WARM_UP = 20_000;
const ROUND = 10_000;
const ROUNDS = 5;
/**
 * valgrind names its control pipes after USER and HOST, read from the environment of the program
 * it runs and of callgrind_control alike: both get these, or the control cannot find the pipe.
 * HOST is also the address the site listens on.
 */
const NAMING = { USER: process.env.USER ?? 'bench', HOST: '127.0.0.1' };

export const canCountInstructions = (): boolean =>
  spawnSync('valgrind', ['--version']).status === 0 && spawnSync('callgrind_control', ['-h']).status === 0;

export interface InstructionRow {
  endpoint: string;
  site_k: number;
  bare_k: number;
  ratio: number;
}

/** Starts `args` (node's) under callgrind; its counts go to files under `dir`. */
function underValgrind(dir: string, name: string, args: string[], env: NodeJS.ProcessEnv, cwd?: string): ChildProcess {
  const child = spawn('valgrind', ['--tool=callgrind', `--callgrind-out-file=${path.join(dir, name)}`, process.execPath, ...args], {
    cwd,
    env: { ...env, ...NAMING },
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  child.stdout!.resume();
  return child;
}

/** Instructions of `pid` an answer over ROUND requests: counts zeroed, the load sent, counts dumped and read. */
async function countOver(dir: string, name: string, pid: number, url: string, headers: Record<string, string>): Promise<number> {
  const control = (flag: string) => spawnSync('callgrind_control', [flag, String(pid)], { env: { ...process.env, ...NAMING } });
  // Each dump is the out file's name with the dump's number after a dot.
  const lastDump = () => Math.max(0, ...readdirSync(dir).map((f) => (f.startsWith(`${name}.`) ? Number(f.slice(name.length + 1)) : 0)));
  const before = lastDump();
  if (control('-z').status !== 0) throw new Error('callgrind_control -z failed');
  await autocannon({ url, connections: 50, amount: ROUND, headers });
  if (control('-d').status !== 0) throw new Error('callgrind_control -d failed');
  // The file can follow the control's answer by a moment.
  for (const deadline = Date.now() + 10_000; lastDump() === before && Date.now() < deadline;) await new Promise((r) => setTimeout(r, 100));
  const file = path.join(dir, `${name}.${lastDump()}`);
  const total = /^totals:\s+(\d+)/m.exec(readFileSync(file, 'utf8'))?.[1];
  if (!total) throw new Error(`no totals in ${file}`);
  return Number(total) / ROUND;
}

async function lowestOf(dir: string, name: string, pid: number, url: string, headers: Record<string, string>): Promise<number> {
  await autocannon({ url, connections: 50, amount: WARM_UP, headers });
  const rounds: number[] = [];
  // The lowest of five: a round that meets a major collection (its marking and sweeping on V8's
  // helper threads, about a quarter of a bare answer over a round) or a background job counts more.
  for (let i = 0; i < ROUNDS; i++) rounds.push(await countOver(dir, name, pid, url, headers));
  console.log(`  ${name} ${url}: ${rounds.map((r) => `${(r / 1000).toFixed(1)}k`).join(', ')}`);
  return Math.min(...rounds);
}

async function waitReady(url: string, child: ChildProcess, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`valgrind exited with ${child.exitCode}`);
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // not yet
    }
    if (Date.now() > deadline) throw new Error(`${url} not ready under valgrind`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/**
 * The site (node `siteArgs` with `siteEnv`, its PORT replaced) under valgrind, and for each
 * endpoint a bare server under valgrind answering the bytes the site answered.
 */
export async function benchInstructions(
  siteArgs: string[],
  siteEnv: NodeJS.ProcessEnv,
  cwd: string,
  endpoints: { name: string; path: string; headers: (url: string) => Promise<Record<string, string>> }[],
): Promise<InstructionRow[]> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'kubik-callgrind-'));
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const site = underValgrind(dir, 'site', siteArgs, { ...siteEnv, PORT: String(port), PUBLIC_URL: url }, cwd);
  const rows: InstructionRow[] = [];
  try {
    await waitReady(`${url}/readyz`, site, 300_000);
    for (const e of endpoints) {
      const headers = { 'accept-encoding': 'gzip, br', ...(await e.headers(url)) };
      const siteK = await lowestOf(dir, 'site', site.pid!, url + e.path, headers);
      const bare = await startBare(
        await capture(url + e.path, headers),
        ['valgrind', '--tool=callgrind', `--callgrind-out-file=${path.join(dir, 'bare')}`],
        NAMING,
      );
      let bareK: number;
      try {
        bareK = await lowestOf(dir, 'bare', bare.pid, bare.url + e.path, headers);
      } finally {
        bare.stop();
      }
      for (const f of readdirSync(dir)) if (f.startsWith('bare')) rmSync(path.join(dir, f));
      rows.push({
        endpoint: e.name,
        site_k: Math.round(siteK / 100) / 10,
        bare_k: Math.round(bareK / 100) / 10,
        ratio: Number((bareK / siteK).toFixed(2)),
      });
      console.log(`instructions per answer, ${e.name}: site ${(siteK / 1000).toFixed(1)}k, bare ${(bareK / 1000).toFixed(1)}k`);
    }
  } finally {
    const exited = new Promise((r) => site.once('exit', r));
    site.kill('SIGTERM');
    await exited;
    rmSync(dir, { recursive: true, force: true });
  }
  return rows;
}
