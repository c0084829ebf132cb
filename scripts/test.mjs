#!/usr/bin/env node
// Runs every test suite and ends with one plain line: `N passed, N failed`.
// API suite: SQLite always, PostgreSQL too when TEST_DATABASE_URL is set.
// Web suite: the web app's own logic (formats, plurals, form error placement), in Node.
// Browser suite: builds the web app, then drives the real site in /usr/bin/chromium.
// Other Node versions (TEST_OTHER_NODES): a part of the API suite under each.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const tmp = mkdtempSync(path.join(os.tmpdir(), 'kubik-results-'));
const only = process.argv.slice(2);

// Tests that compare timings inside one run (a login's median during a flood against calm) need
// the machine to themselves; the rest of the API suite runs in two workers beside each other.
const ALONE = ['src/modules/security/login-flood.test.ts'];

const suites = [
  { name: 'api', cwd: 'apps/server', args: ['--maxWorkers=2', ...ALONE.map((f) => `--exclude=${f}`)] },
  { name: 'api-alone', cwd: 'apps/server', files: ALONE },
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
  // TEST_OTHER_NODES=/path/to/node22,/path/to/node24 (set by .ci/run): the built site, its
  // migrations, backups and password checks once more under each of those Node versions, with the
  // same node_modules (better-sqlite3 13, argon2 and sharp are Node-API; 12 is for Node 20 only).
  ...(process.env.TEST_OTHER_NODES ?? '')
    .split(',')
    .filter(Boolean)
    .map((node) => ({
      name: `api-node${spawnSync(node, ['-p', 'process.versions.node.split(".")[0]'], { encoding: 'utf8' }).stdout.trim() || '?'}`,
      cwd: 'apps/server',
      node,
      files: ['src/hardening/build.test.ts', 'src/db', 'src/lib/backup.test.ts', 'src/front-door/passwords.test.ts'],
    })),
].filter((s) => only.length === 0 || only.includes(s.name) || (only.includes('api') && (s.node || s.name === 'api-alone')));

function firstLine(messages) {
  return String((messages ?? []).find(Boolean) ?? '')
    .split('\n')[0]
    .slice(0, 300);
}

function run(cmd, args, cwd) {
  const res = spawnSync(cmd, args, { cwd, stdio: 'inherit', env: process.env });
  return res.status ?? 1;
}

let passed = 0;
let failed = 0;
let broken = false;
// Named again at the end: a CI log often keeps only its tail.
const failures = [];
for (const suite of suites) {
  console.log(`\n=== ${suite.name} ===`);
  if (suite.before && suite.before() !== 0) {
    console.error(`${suite.name}: preparation failed`);
    broken = true;
    continue;
  }
  const out = path.join(tmp, `${suite.name}.json`);
  const vitestArgs = [
    'run',
    '--reporter=default',
    '--reporter=json',
    `--outputFile.json=${out}`,
    ...(suite.args ?? []),
    ...(suite.files ?? []),
  ];
  const status = suite.node
    ? run(suite.node, [path.join(root, 'node_modules/vitest/vitest.mjs'), ...vitestArgs], path.join(root, suite.cwd))
    : run('npx', ['vitest', ...vitestArgs], path.join(root, suite.cwd));
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
    const where = `${suite.name}: ${path.relative(path.join(root, suite.cwd), file.name)}`;
    const failedTests = (file.assertionResults ?? []).filter((a) => a.status === 'failed');
    for (const a of failedTests) failures.push(`${where} > ${a.fullName}\n    ${firstLine(a.failureMessages)}`);
    if (file.status === 'failed' && failedTests.length === 0) {
      failed += 1;
      failures.push(`${where}\n    ${firstLine([file.message])}`);
    }
  }
  // A file that failed to load counts no test but must fail the run.
  if (status !== 0 && r.numFailedTests === 0) broken = true;
  if (r.numTotalTests === 0) broken = true;
}

if (failures.length > 0) console.log(`\nFailed:\n${failures.map((f) => `  ${f}`).join('\n')}`);
console.log(`\n${passed} passed, ${failed} failed`);
process.exit(failed > 0 || broken ? 1 : 0);
