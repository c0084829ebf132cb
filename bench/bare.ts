/** The bench's ceiling: a bare node:http server answering the very bytes the site answered. */
import { spawn } from 'node:child_process';
import http from 'node:http';
import { freePort } from '../testing/free-port.ts';

export interface Answer {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

/**
 * A bare node:http server in its own process answering `answer` to every request. `prefix` runs
 * it under another program (valgrind: instructions.ts); `env` is added to its environment.
 */
export async function startBare(
  answer: Answer,
  prefix: string[] = [],
  env: Record<string, string> = {},
): Promise<{ url: string; pid: number; stop: () => void }> {
  const port = await freePort();
  const script = `
    const http = require('node:http');
    const body = Buffer.from(process.env.BODY, 'base64');
    const headers = JSON.parse(process.env.HEADERS);
    http.createServer((req, res) => { res.writeHead(${answer.status}, headers); res.end(body); }).listen(${port}, '127.0.0.1', () => process.send && process.send('ready'));`;
  const [command, ...args] = [...prefix, process.execPath, '-e', script];
  const child = spawn(command!, args, {
    env: { ...env, BODY: answer.body.toString('base64'), HEADERS: JSON.stringify(answer.headers) },
    stdio: ['ignore', 'inherit', prefix.length ? 'ignore' : 'inherit', 'ipc'],
  });
  await new Promise((r) => child.once('message', r));
  return { url: `http://127.0.0.1:${port}`, pid: child.pid!, stop: () => child.kill() };
}

/** Fetches once with raw http to capture exactly what the site sends. */
export function capture(url: string, headers: Record<string, string>): Promise<Answer> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const h: Record<string, string> = {};
          for (const [k, v] of Object.entries(res.headers))
            if (v !== undefined && !['date', 'connection', 'keep-alive', 'transfer-encoding'].includes(k)) h[k] = String(v);
          resolve({ status: res.statusCode ?? 0, headers: h, body: Buffer.concat(chunks) });
        });
      })
      .on('error', reject);
  });
}
