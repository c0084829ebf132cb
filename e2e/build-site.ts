import { spawnSync } from 'node:child_process';
import path from 'node:path';

/**
 * Vitest's global setup: the browser tests drive the site as `npm start` runs it, the built
 * bundle (apps/server/dist), so it is built first when its sources changed (once per run, before
 * the workers start; `npm test` has built it already and this finds nothing to do).
 */
export default function buildSite(): void {
  const res = spawnSync(process.execPath, ['scripts/build.mjs', 'contract', 'server', '--if-changed', '--quiet'], {
    cwd: path.resolve(import.meta.dirname, '..'),
    stdio: 'inherit',
  });
  if (res.status !== 0) throw new Error(`building the server failed (${res.status ?? res.signal})`);
}
