import { defineConfig } from 'vitest/config';

// The web app's unit tests: its logic (formats, plurals, where a server error lands), in Node.
// Screens are covered by the browser tests in e2e/.
export default defineConfig({
  test: {
    include: ['src/**/*.test.ts'],
    environment: 'node',
  },
});
