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
);
