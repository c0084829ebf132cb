#!/usr/bin/env node
// Proves that the web app's layer rule (eslint.config.js, `webLayers`) still fires: lints small
// pieces of code as if they sat at these paths and expects an error exactly where a layer is
// crossed. `npm run lint` runs it after ESLint, so a config change that silences the rule fails.
import { ESLint } from 'eslint';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const web = (file) => path.join(root, 'apps/web/src', file);
const CASES = [
  // [file, import, crosses a layer?]
  ['features/news/probe.ts', '../../app/router.tsx', true],
  ['features/news/probe.ts', '../servers/api.ts', true],
  ['features/news/probe.ts', './api.ts', false],
  ['features/news/probe.ts', '../../components/Modal.tsx', false],
  ['features/news/probe.ts', '../../providers/auth.tsx', false],
  ['components/probe.ts', '../features/news/api.ts', true],
  ['components/probe.ts', '../app/guards.tsx', true],
  ['components/probe.ts', '../providers/auth.tsx', false],
  ['providers/probe.ts', '../components/Modal.tsx', true],
  ['providers/probe.ts', '../lib/api.ts', false],
  ['lib/probe.ts', '../providers/site.tsx', true],
  ['app/probe.ts', '../features/news/api.ts', false],
];

const eslint = new ESLint({ cwd: root });
let wrong = 0;
for (const [file, target, crosses] of CASES) {
  const [result] = await eslint.lintText(`import '${target}';\n`, { filePath: web(file) });
  const fired = result.messages.some((m) => m.ruleId === 'boundaries/dependencies');
  if (fired !== crosses) {
    wrong += 1;
    console.error(`web layers: ${file} → ${target}: expected ${crosses ? 'an error' : 'no error'}, got ${fired ? 'an error' : 'none'}`);
  }
}
if (wrong > 0) process.exit(1);
console.log(`web layers: ${CASES.length} import checks behave`);
