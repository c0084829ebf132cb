import { readFileSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '..');

/**
 * The arguments `npm run serve` gives node (its flags and the built bundle), so that the browser
 * tests and the benchmarks run the site exactly as an owner's `npm start` does.
 */
export function serveArgs(): string[] {
  const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
  return pkg.scripts.serve!.split(/\s+/).slice(1);
}

/**
 * What the production units add to the environment (deploy/systemd/kubik@.service's
 * Environment=, deploy/Dockerfile's ENV; apps/server/src/deploy/deploy-files.test.ts keeps them
 * in step): a fixed glibc mmap threshold, so that an Argon2id check's 12 MiB are mapped and given back each
 * time. With glibc's moving threshold the first check raised it above the check's size (19 MiB then), and every later
 * buffer stayed in the thread's heap when freed (159 → 148 MB peak through `npm run bench`). Only
 * a new process's environment can set it, so `npm run serve`, which must also run on Windows, has
 * it not; the benches and browser tests run the site as the units do.
 */
export const SERVE_ENV: Readonly<Record<string, string>> = Object.freeze({ MALLOC_MMAP_THRESHOLD_: '4194304' });
