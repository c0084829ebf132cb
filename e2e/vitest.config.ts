import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.e2e.ts'],
    globalSetup: ['./build-site.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Each file starts its own site and browser; two cores run two files at most.
    maxWorkers: 2,
    pool: 'forks',
  },
});
