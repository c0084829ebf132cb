#!/usr/bin/env node
// Runs every test suite and ends with one plain line: `N passed, N failed`.
// API suite: SQLite always, PostgreSQL too when TEST_DATABASE_URL is set.
// Web suite: the web app's own logic (formats, plurals, form error placement), in Node.
// Browser suite: builds the web app, then drives the real site in /usr/bin/chromium.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const tmp = mkdtempSync(path.join(os.tmpdir(), 'kubik-results-'));
const only = process.argv.slice(2);

const suites = [
  { name: 'api', cwd: 'apps/server' },
  { name: 'web', cwd: 'apps/web' },
  // WEB_DIST lets parallel checkouts build into and serve from a folder of their own.
  {
    name: 'e2e',
    cwd: 'e2e',
    before: () =>
      process.env.WEB_DIST
        ? run('npx', ['vite', 'build', '--outDir', process.env.WEB_DIST, '--emptyOutDir'], path.join(root, 'apps/web'))
        : run('npm', ['run', 'build'], root),
  },
].filter((s) => only.length === 0 || only.includes(s.name));

function run(cmd, args, cwd) {
  const res = spawnSync(cmd, args, { cwd, stdio: 'inherit', env: process.env });
  return res.status ?? 1;
}

let passed = 0;
let failed = 0;
let broken = false;
for (const suite of suites) {
  console.log(`\n=== ${suite.name} ===`);
  if (suite.before && suite.before() !== 0) {
    console.error(`${suite.name}: preparation failed`);
    broken = true;
    continue;
  }
  const out = path.join(tmp, `${suite.name}.json`);
  const status = run(
    'npx',
    ['vitest', 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${out}`],
    path.join(root, suite.cwd),
  );
  if (!existsSync(out)) {
    console.error(`${suite.name}: no results (exit ${status})`);
    broken = true;
    continue;
  }
  const r = JSON.parse(readFileSync(out, 'utf8'));
  passed += r.numPassedTests;
  failed += r.numFailedTests;
  // A file whose setup failed fails no single test: count the file itself as a failure.
  for (const file of r.testResults ?? []) {
    if (file.status === 'failed' && !(file.assertionResults ?? []).some((a) => a.status === 'failed')) failed += 1;
  }
  // A file that failed to load counts no test but must fail the run.
  if (status !== 0 && r.numFailedTests === 0) broken = true;
  if (r.numTotalTests === 0) broken = true;
}

console.log(`\n${passed} passed, ${failed} failed`);
process.exit(failed > 0 || broken ? 1 : 0);
