#!/usr/bin/env node
// Production build: the contract package, the server and the web app, each into its dist/.
//   node scripts/build.mjs [contract|server|web ...] [--if-changed] [--quiet]
// --if-changed (npm start, the CLIs) skips a part whose inputs are byte for byte the ones it was
// last built from: each dist/ keeps a stamp, the SHA-256 of every input file's path and content.
// The server is bundled with esbuild into apps/server/dist (main.js, migrate.js, admin-create.js,
// check-ledger.js, backup.js, restore.js, import-authme.js and shared chunks): our TypeScript, the contract and the packages
// it uses inlined, but for native addons and a few that read their own files (left as imports), so plain
// `node` runs it. The contract also gets a compiled
// dist/index.js (+ .d.ts) of its own, exported under the `compiled` condition.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const args = process.argv.slice(2);
const ifChanged = args.includes('--if-changed');
const quiet = args.includes('--quiet');
const named = args.filter((a) => !a.startsWith('--'));
const log = (s) => quiet || console.log(s);

/** Every file under the given paths (files or folders), skipping tests and build output. */
function inputs(paths) {
  const out = [];
  const walk = (p) => {
    const full = path.join(root, p);
    if (!existsSync(full)) return;
    if (statSync(full).isDirectory()) {
      for (const name of readdirSync(full).sort()) if (name !== 'node_modules' && name !== 'dist') walk(path.join(p, name));
    } else if (!/\.test\.tsx?$/.test(p)) out.push(p);
  };
  for (const p of paths) walk(p);
  return out;
}

function stampOf(paths) {
  const h = createHash('sha256');
  for (const f of inputs(paths))
    h.update(f)
      .update('\0')
      .update(readFileSync(path.join(root, f)))
      .update('\0');
  return h.digest('hex');
}

function run(cmd, cmdArgs, cwd = root) {
  const res = spawnSync(cmd, cmdArgs, { cwd, stdio: quiet ? ['ignore', 'ignore', 'inherit'] : 'inherit', env: process.env });
  if (res.status !== 0) throw new Error(`${cmd} ${cmdArgs.join(' ')} failed (${res.status ?? res.signal})`);
}

const pkg = (p) => JSON.parse(readFileSync(path.join(root, p, 'package.json'), 'utf8'));

/**
 * Packages the server's dependencies require but the site never calls, left out of its bundle
 * (about 800 KB less for V8 to read and parse at every start): Fastify's default schema
 * compilers, Ajv and fast-json-stringify, which app.ts replaces with zod's (schemaController), and
 * glob, which @fastify/static calls only for `wildcard: false`. Each is replaced by a function
 * that throws, so a later use fails loudly at start instead of working by accident.
 */
const UNUSED_IN_BUNDLE = ['@fastify/ajv-compiler', '@fastify/fast-json-stringify-compiler', 'glob'];
const leaveOutUnused = {
  name: 'leave-out-unused',
  setup(b) {
    const filter = new RegExp(`^(${UNUSED_IN_BUNDLE.map((n) => n.replace(/[/]/g, '\\/')).join('|')})$`);
    b.onResolve({ filter }, (a) => ({ path: a.path, namespace: 'unused' }));
    b.onLoad({ filter: /.*/, namespace: 'unused' }, (a) => ({
      loader: 'js',
      contents: `const fail = () => { throw new Error(${JSON.stringify(`${a.path} is left out of the bundle (scripts/build.mjs)`)}); };
module.exports = fail;
module.exports.glob = fail;`,
    }));
  },
};

/**
 * The API docs' packages (@fastify/swagger and @fastify/swagger-ui) require `yaml` when they
 * register, for the docs' YAML form that is rarely asked for. Loading it was 60–80 ms of a cold
 * start on a slow machine. In the bundle they get this stand-in instead, which loads the
 * bundled `yaml` on first use.
 */
const lazyYaml = {
  name: 'lazy-yaml',
  setup(b) {
    b.onResolve({ filter: /^yaml$/ }, (a) =>
      a.namespace === 'file' && /[\\/]@fastify[\\/]swagger(-ui)?[\\/]/.test(a.importer)
        ? { path: 'yaml', namespace: 'lazy-yaml' }
        : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'lazy-yaml' }, () => ({
      loader: 'js',
      resolveDir: root,
      contents: `let yaml;
const load = () => (yaml ??= require('yaml'));
module.exports = { stringify: (...args) => load().stringify(...args), parse: (...args) => load().parse(...args) };`,
    }));
  },
};

/**
 * zod's namespace `z` carries `z.locales`, every language's messages (300 KB of the bundle), so
 * importing `z` brought them all, though the site sets Russian alone (app.ts). In the bundle the
 * locales' index is a stand-in holding only `ru`: 300 KB less to parse at each start.
 */
const russianZodOnly = {
  name: 'russian-zod-only',
  setup(b) {
    b.onResolve({ filter: /[\\/]locales[\\/]index\.js$/ }, (a) =>
      a.namespace === 'file' && /[\\/]node_modules[\\/]zod[\\/]/.test(a.importer)
        ? { path: path.join(path.dirname(a.importer), a.path), namespace: 'zod-locales' }
        : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'zod-locales' }, (a) => ({
      loader: 'js',
      resolveDir: path.dirname(a.path),
      contents: `export { default as ru } from './ru.js';`,
    }));
  },
};

const parts = {
  contract: {
    dist: 'packages/contract/dist',
    inputs: ['packages/contract/src', 'packages/contract/package.json', 'packages/contract/tsconfig.json', 'scripts/build.mjs'],
    async build() {
      const esbuild = await import('esbuild');
      await esbuild.build({
        absWorkingDir: root,
        entryPoints: ['packages/contract/src/index.ts'],
        outfile: 'packages/contract/dist/index.js',
        bundle: true,
        platform: 'neutral',
        format: 'esm',
        target: 'es2023',
        external: Object.keys(pkg('packages/contract').dependencies ?? {}),
        logLevel: 'warning',
      });
      run(process.execPath, [
        path.join(root, 'node_modules/typescript/bin/tsc'),
        '-p',
        'packages/contract',
        '--noEmit',
        'false',
        '--declaration',
        '--emitDeclarationOnly',
        '--rewriteRelativeImportExtensions',
        '--outDir',
        'packages/contract/dist',
      ]);
    },
  },
  server: {
    dist: 'apps/server/dist',
    inputs: ['apps/server/src', 'apps/server/package.json', 'packages/contract/src', 'package-lock.json', 'scripts/build.mjs'],
    async build() {
      const esbuild = await import('esbuild');
      // Packages are bundled too (resolving and loading some 600 files from node_modules
      // was half of a cold start), except those that cannot be: native addons, and packages that
      // read files beside their own code at run time (pino's workers; the API docs' pages are
      // found through swagger-ui's `baseDir`, app.ts).
      const external = [
        'better-sqlite3',
        'better-sqlite3-napi',
        '@node-rs/argon2',
        '@node-rs/bcrypt',
        'sharp',
        'pg-native',
        'pino',
        'thread-stream',
        // @fastify/cookie loads it with import() from CommonJS: bundled, its named exports would be lost.
        'cookie',
      ];
      const src = 'apps/server/src';
      await esbuild.build({
        absWorkingDir: root,
        // All entries and chunks sit side by side in dist/, at the depth of src/: config.ts finds
        // the repository root from import.meta.dirname the same way in both.
        entryPoints: {
          main: `${src}/main.ts`,
          migrate: `${src}/cli/migrate.ts`,
          'admin-create': `${src}/cli/admin-create.ts`,
          'check-ledger': `${src}/cli/check-ledger.ts`,
          backup: `${src}/cli/backup.ts`,
          restore: `${src}/cli/restore.ts`,
          'import-authme': `${src}/cli/import-authme.ts`,
        },
        outdir: 'apps/server/dist',
        chunkNames: 'chunk-[hash]',
        bundle: true,
        splitting: true,
        platform: 'node',
        format: 'esm',
        target: 'node20.19',
        external,
        sourcemap: 'linked',
        // Whitespace and syntax only: less to parse at start, and names stay as written, except where
        // two modules' top-level names collide (a `2` is added: `buy2` in a stack trace; the linked
        // source map says where). No keepNames: its 4,700 `__name()` calls, some inside handlers,
        // cost about 40 ms of a cold start on one core (915 against 958 ms, interleaved).
        minifyWhitespace: true,
        minifySyntax: true,
        // Bundled CommonJS packages require Node's own modules; an ES module has no `require`.
        banner: {
          js: "import { createRequire as kubikCreateRequire } from 'node:module'; const require = kubikCreateRequire(import.meta.url);",
        },
        plugins: [leaveOutUnused, lazyYaml, russianZodOnly],
        logLevel: 'warning',
      });
    },
  },
  web: {
    dist: 'apps/web/dist',
    inputs: [
      'apps/web/src',
      'apps/web/public',
      'apps/web/index.html',
      'apps/web/vite.config.ts',
      'apps/web/package.json',
      'apps/web/tsconfig.json',
      'packages/contract/src',
      'package-lock.json',
    ],
    async build() {
      const vite = path.join(root, 'node_modules/vite/bin/vite.js');
      run(process.execPath, [vite, 'build'], path.join(root, 'apps/web'));
      // The page renderer for the server, into dist/ssr/ (apps/server/src/modules/site/site.prerender.ts).
      run(process.execPath, [vite, 'build', '--ssr', 'src/entry-server.tsx'], path.join(root, 'apps/web'));
    },
  },
};

const chosen = named.length ? named : Object.keys(parts);
for (const name of chosen) if (!parts[name]) throw new Error(`unknown part ${name}: ${Object.keys(parts).join(', ')}`);
for (const name of chosen) {
  const part = parts[name];
  const stampFile = path.join(root, part.dist, '.build-stamp');
  const stamp = stampOf(part.inputs);
  if (ifChanged && existsSync(stampFile) && readFileSync(stampFile, 'utf8') === stamp) {
    log(`${name}: up to date (${part.dist})`);
    continue;
  }
  const t = performance.now();
  if (name !== 'web') rmSync(path.join(root, part.dist), { recursive: true, force: true });
  await part.build();
  mkdirSync(path.join(root, part.dist), { recursive: true });
  writeFileSync(stampFile, stamp);
  log(`${name}: built in ${Math.round(performance.now() - t)} ms (${part.dist})`);
}
