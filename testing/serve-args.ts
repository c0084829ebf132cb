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
