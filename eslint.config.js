import js from '@eslint/js';
import boundaries from 'eslint-plugin-boundaries';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';
import tseslint from 'typescript-eslint';

const WEB = 'apps/web/src';
const SHARED = ['web-components', 'web-providers', 'web-lib'];

/**
 * The web app's dependencies run one way: the shell (app/) → features/<x>/ → shared code
 * (components/, providers/, lib/). A feature never imports the shell or another feature; shared
 * code never imports a feature or the shell; inside the shared layer components → providers →
 * lib. A screen that needs two features is composed in the shell (app/pages/, app/admin/).
 * scripts/check-web-layers.mjs proves each rule still fires.
 */
const webLayers = {
  files: [`${WEB}/**/*.{ts,tsx}`],
  plugins: { boundaries },
  settings: {
    'boundaries/include': [`${WEB}/**/*`],
    'boundaries/elements': [
      { type: 'web-app', pattern: `${WEB}/app` },
      { type: 'web-feature', pattern: `${WEB}/features/*`, capture: ['feature'] },
      { type: 'web-components', pattern: `${WEB}/components` },
      { type: 'web-providers', pattern: `${WEB}/providers` },
      { type: 'web-lib', pattern: `${WEB}/lib` },
    ],
  },
  rules: {
    'boundaries/dependencies': [
      'error',
      {
        default: 'allow',
        policies: [
          { from: { element: { type: 'web-feature' } }, disallow: { to: { element: { type: 'web-app' } } } },
          {
            from: { element: { type: 'web-feature' } },
            disallow: { to: { element: { type: 'web-feature', captured: { feature: '!{{ from.element.captured.feature }}' } } } },
          },
          {
            from: { element: { types: { anyOf: SHARED } } },
            disallow: { to: { element: { types: { anyOf: ['web-app', 'web-feature'] } } } },
          },
          { from: { element: { type: 'web-providers' } }, disallow: { to: { element: { type: 'web-components' } } } },
          {
            from: { element: { type: 'web-lib' } },
            disallow: { to: { element: { types: { anyOf: ['web-components', 'web-providers'] } } } },
          },
        ],
      },
    ],
  },
};

const SERVER = 'apps/server/src';
/** Modules any feature may import (design.md, «Features over a core»); every other folder of modules/ is a feature. */
const SERVER_CORE = ['users', 'audit', 'mail', 'ledger', 'deliveries', 'site', 'purchases', 'notices'];
/**
 * The pairs of features allowed to meet directly: privileges sells the tiers donate lists and
 * reads them; subscriptions sell those tiers through the payments' providers and the privileges'
 * placement (docs/decisions/220-server-core-and-ports.md). Adding a pair here needs a note there.
 */
const SERVER_FEATURE_PAIRS = [
  ['privileges', 'donate'],
  ['subscriptions', 'payments'],
  ['subscriptions', 'privileges'],
  ['subscriptions', 'donate'],
  ['guest-orders', 'payments'],
  ['guest-orders', 'shop'],
  ['guest-orders', 'privileges'],
  ['guest-orders', 'donate'],
];

/**
 * The server's dependencies run one way: the composition root (app.ts, modules/index.ts) → a
 * feature (modules/<x>) → the core (modules/users, audit, …) → lib/. A feature never imports
 * another feature: where it must ask or tell one, the users core offers a port or hook
 * (modules/users/users.ports.ts) that the answering feature registers with its routes. The core
 * never imports a feature; lib/ never imports modules, plugins or the front door; plugins/ and
 * db/ import at most the core, except the table and migration registries (db/types.ts,
 * db/migrations/index.ts), which gather every module's. base/ is the ground: helpers that import
 * nothing of the site, which db/ and config.ts stand on (db/ uses base/, never lib/). The front door (front-door/) stands
 * between: it reads sessions with the users core and uses lib/, and anything above may use it,
 * but the users core never does. Tests drive the whole site and may use any module.
 * scripts/check-server-layers.mjs proves each rule still fires.
 */
const serverLayers = {
  files: [`${SERVER}/**/*.ts`],
  ignores: [`${SERVER}/**/*.test.ts`, `${SERVER}/test/**`, `${SERVER}/db/types.ts`, `${SERVER}/db/migrations/index.ts`],
  plugins: { boundaries },
  settings: {
    'boundaries/include': [`${SERVER}/**/*`],
    'boundaries/elements': [
      { type: 'server-core', pattern: `${SERVER}/modules/{${SERVER_CORE.join(',')}}`, capture: ['module'] },
      { type: 'server-feature', pattern: `${SERVER}/modules/*`, capture: ['feature'] },
      { type: 'server-lib', pattern: `${SERVER}/lib` },
      { type: 'server-base', pattern: `${SERVER}/base` },
      { type: 'server-front-door', pattern: `${SERVER}/front-door` },
      { type: 'server-plugins', pattern: `${SERVER}/plugins` },
      { type: 'server-db', pattern: `${SERVER}/db` },
    ],
  },
  rules: {
    'boundaries/dependencies': [
      'error',
      {
        default: 'allow',
        policies: [
          {
            from: { element: { type: 'server-feature' } },
            disallow: { to: { element: { type: 'server-feature', captured: { feature: '!{{ from.element.captured.feature }}' } } } },
          },
          ...SERVER_FEATURE_PAIRS.map(([from, to]) => ({
            from: { element: { type: 'server-feature', captured: { feature: from } } },
            allow: { to: { element: { type: 'server-feature', captured: { feature: to } } } },
          })),
          { from: { element: { type: 'server-core' } }, disallow: { to: { element: { type: 'server-feature' } } } },
          {
            from: { element: { types: { anyOf: ['server-plugins', 'server-db'] } } },
            disallow: { to: { element: { type: 'server-feature' } } },
          },
          { from: { element: { type: 'server-db' } }, disallow: { to: { element: { type: 'server-core' } } } },
          {
            from: { element: { type: 'server-base' } },
            disallow: {
              to: {
                element: {
                  types: { anyOf: ['server-core', 'server-feature', 'server-plugins', 'server-front-door', 'server-lib', 'server-db'] },
                },
              },
            },
          },
          { from: { element: { type: 'server-db' } }, disallow: { to: { element: { type: 'server-lib' } } } },
          {
            from: { element: { type: 'server-lib' } },
            disallow: { to: { element: { types: { anyOf: ['server-core', 'server-feature', 'server-plugins', 'server-front-door'] } } } },
          },
          {
            from: { element: { type: 'server-front-door' } },
            disallow: { to: { element: { types: { anyOf: ['server-feature', 'server-plugins'] } } } },
          },
          {
            from: { element: { types: { anyOf: ['server-db'] } } },
            disallow: { to: { element: { type: 'server-front-door' } } },
          },
          {
            from: { element: { type: 'server-core', captured: { module: 'users' } } },
            disallow: { to: { element: { type: 'server-front-door' } } },
          },
        ],
      },
    ],
  },
};

/**
 * Comments say why, in the present tense: the project's history (issue numbers, rounds, sessions,
 * dated work notes, instruction counts of a profiler) belongs in commit messages, ADRs
 * (docs/decisions) and docs/bench.md, where it can be dated and read in order.
 */
const HISTORY_IN_COMMENTS = [
  [/\bissues? #?\d+/i, 'an issue number'],
  [/\bround (one|two|three|four|five|\d+)\b/i, 'a round'],
  [
    /\b(first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|eleventh|twelfth|thirteenth|\d+(st|nd|rd|th)) session\b/i,
    'a session',
  ],
  [/\b\d+(\.\d+)?k instructions\b/i, 'an instruction count'],
];
const historyComments = {
  meta: {
    type: 'suggestion',
    messages: { history: 'Comments say why, in the present tense: {{what}} belongs in a commit message, an ADR or docs/bench.md.' },
  },
  create(context) {
    return {
      Program() {
        for (const comment of context.sourceCode.getAllComments())
          for (const [pattern, what] of HISTORY_IN_COMMENTS)
            if (pattern.test(comment.value)) context.report({ loc: comment.loc, messageId: 'history', data: { what } });
      },
    };
  },
};

export default tseslint.config(
  { ignores: ['**/dist/**', '**/node_modules/**', 'data/**', 'bench/results*.json'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.{ts,tsx}'],
    languageOptions: { globals: { ...globals.node, ...globals.browser } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
    },
  },
  {
    files: ['apps/web/**/*.tsx', 'apps/web/**/*.ts'],
    plugins: { 'react-hooks': reactHooks },
    rules: { 'react-hooks/rules-of-hooks': 'error', 'react-hooks/exhaustive-deps': 'warn' },
  },
  {
    // Test doubles live in the repo-root testing/ folder; the site itself must never load one.
    files: ['apps/server/src/**/*.ts'],
    ignores: ['apps/server/src/**/*.test.ts', 'apps/server/src/test/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ regex: '(^|/)testing/', message: 'Test doubles (testing/) are for tests only.' }] },
      ],
    },
  },
  { files: ['**/*.{js,mjs}'], languageOptions: { globals: globals.node } },
  webLayers,
  {
    // Routes validate, call a service or repository, and shape the answer: a query or a transaction
    // opened there is a query without a home (each module keeps its queries in its *.repo.ts).
    files: [`${SERVER}/modules/**/*.routes.ts`],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector:
            'CallExpression[callee.property.name=/^(selectFrom|insertInto|updateTable|deleteFrom|selectNoFrom|replaceInto|mergeInto|transaction)$/]',
          message: 'No query builder in routes: the query belongs in the module’s *.repo.ts (or a service that owns the transaction).',
        },
        { selector: 'TaggedTemplateExpression[tag.name="sql"]', message: 'No SQL in routes: the query belongs in the module’s *.repo.ts.' },
      ],
    },
  },
  {
    // Services own the transaction and the order of its steps; each step is a repository call,
    // so a query is read, named and reused in one place.
    files: [`${SERVER}/modules/**/*.service.ts`],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector:
            'CallExpression[callee.property.name=/^(selectFrom|insertInto|updateTable|deleteFrom|selectNoFrom|replaceInto|mergeInto)$/]',
          message: 'No query builder in services: the query belongs in the module’s *.repo.ts.',
        },
        {
          selector: 'TaggedTemplateExpression[tag.name="sql"]',
          message: 'No SQL in services: the query belongs in the module’s *.repo.ts.',
        },
      ],
    },
  },
  {
    files: ['**/*.{ts,tsx,js,mjs}'],
    ignores: ['**/*.test.ts', '**/*.e2e.ts'],
    plugins: { kubik: { rules: { 'no-history-in-comments': historyComments } } },
    rules: { 'kubik/no-history-in-comments': 'error' },
  },
  {
    // A double imitates the real software from its protocol or format; one that borrowed the
    // site's own code (apps/, packages/, the contract) would share the bugs it is there to catch.
    files: ['testing/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { regex: '(^|/)(apps|packages)/', message: 'A test double is written without the code it tests.' },
            { regex: '^@kubik/', message: 'A test double is written without the code it tests.' },
          ],
        },
      ],
    },
  },
  serverLayers,
);
