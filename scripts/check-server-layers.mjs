#!/usr/bin/env node
// Proves that the server's layer rule (eslint.config.js, `serverLayers`) still fires: lints small
// pieces of code as if they sat at these paths and expects an error exactly where a layer is
// crossed. `npm run lint` runs it after ESLint, so a config change that silences the rule fails.
import { ESLint } from 'eslint';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const server = (file) => path.join(root, 'apps/server/src', file);
const CASES = [
  // [file, import, crosses a layer?]
  // A feature imports the core and itself, never another feature…
  ['modules/capes/probe.ts', '../privileges/privileges.service.ts', true],
  ['modules/game-auth/probe.ts', '../skins/skins.repo.ts', true],
  ['modules/accounts/probe.ts', '../payments/payments.admin.ts', true],
  ['modules/capes/probe.ts', './capes.repo.ts', false],
  ['modules/capes/probe.ts', '../users/users.ports.ts', false],
  ['modules/bans/probe.ts', '../deliveries/deliveries.queue.ts', false],
  ['modules/shop/probe.ts', '../purchases/purchases.service.ts', false],
  // …except the one documented pair, and only in its direction.
  ['modules/privileges/probe.ts', '../donate/donate.repo.ts', false],
  ['modules/donate/probe.ts', '../privileges/privileges.service.ts', true],
  // The core never imports a feature; one core module may use another.
  ['modules/users/probe.ts', '../security/two-factor.service.ts', true],
  ['modules/deliveries/probe.ts', '../shop/shop.service.ts', true],
  ['modules/users/probe.ts', '../mail/mail.layout.ts', false],
  // lib/ knows no module and no plugin.
  ['lib/probe.ts', '../modules/users/users.repo.ts', true],
  ['lib/jobs/probe.ts', '../../modules/shop/shop.service.ts', true],
  ['lib/probe.ts', '../plugins/auth.ts', true],
  ['lib/probe.ts', './errors.ts', false],
  // plugins/ and db/ stay under the features; only the registries gather every module.
  ['plugins/probe.ts', '../modules/users/users.repo.ts', false],
  ['plugins/probe.ts', '../modules/bans/bans.service.ts', true],
  ['db/probe.ts', '../modules/users/users.repo.ts', true],
  ['db/types.ts', '../modules/bans/bans.tables.ts', false],
  ['db/migrations/index.ts', '../../modules/bans/bans.migrations.ts', false],
  // The front door reads sessions with the users core; the users core, lib/ and db/ never use it.
  ['front-door/probe.ts', '../modules/users/session-tokens.ts', false],
  ['front-door/probe.ts', '../lib/public-cache.ts', false],
  ['front-door/probe.ts', '../modules/shop/shop.service.ts', true],
  ['front-door/probe.ts', '../plugins/auth.ts', true],
  ['modules/users/probe.ts', '../../front-door/passwords.ts', true],
  ['lib/probe.ts', '../front-door/http.ts', true],
  ['modules/accounts/probe.ts', '../../front-door/passwords.ts', false],
  ['modules/site/probe.ts', '../../front-door/http.ts', false],
  // base/ is the ground: it imports nothing of the site, and db/ takes its helpers from there, not lib/.
  ['base/probe.ts', '../lib/errors.ts', true],
  ['base/probe.ts', '../db/index.ts', true],
  ['base/probe.ts', './ip-list.ts', false],
  ['db/probe.ts', '../base/backoff.ts', false],
  ['db/probe.ts', '../lib/logging.ts', true],
  ['lib/probe.ts', '../base/backoff.ts', false],
  // The composition root composes.
  ['modules/index.ts', './bans/bans.routes.ts', false],
  ['app.ts', './modules/security/sessions.service.ts', false],
];

const eslint = new ESLint({ cwd: root });
let wrong = 0;
for (const [file, target, crosses] of CASES) {
  const [result] = await eslint.lintText(`import '${target}';\n`, { filePath: server(file) });
  const fired = result.messages.some((m) => m.ruleId === 'boundaries/dependencies');
  if (fired !== crosses) {
    wrong += 1;
    console.error(`server layers: ${file} → ${target}: expected ${crosses ? 'an error' : 'no error'}, got ${fired ? 'an error' : 'none'}`);
  }
}
// Routes and services hold no query: the rule fires on a query builder there and not in a *.repo.ts.
for (const [file, fires] of [
  ['modules/news/probe.routes.ts', true],
  ['modules/news/probe.service.ts', true],
  ['modules/news/probe.repo.ts', false],
]) {
  const [result] = await eslint.lintText("export const q = (db) => db.selectFrom('news').selectAll().execute();\n", {
    filePath: server(file),
  });
  const fired = result.messages.some((m) => m.ruleId === 'no-restricted-syntax');
  if (fired !== fires) {
    wrong += 1;
    console.error(`server layers: a query in ${file}: expected ${fires ? 'an error' : 'no error'}, got ${fired ? 'an error' : 'none'}`);
  }
}
if (wrong > 0) process.exit(1);
console.log(`server layers: ${CASES.length} import checks behave`);
