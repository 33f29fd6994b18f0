import { defineConfig } from 'vitest/config';

// One vitest project per package plus the cross-package suite in test/. `pnpm test` runs them all.
export default defineConfig({
  test: {
    reporters: ['default', './test/support/summary-reporter.ts'],
    projects: [
      {
        test: {
          name: 'site-kit',
          root: 'packages/site-kit',
          include: ['test/**/*.test.ts'],
          environment: 'node',
        },
      },
      {
        test: {
          name: 'emulator',
          root: 'packages/emulator',
          include: ['test/**/*.test.ts'],
          environment: 'node',
        },
      },
      {
        test: {
          name: 'player',
          root: 'packages/player',
          include: ['test/**/*.test.ts'],
          environment: 'happy-dom',
        },
      },
      {
        test: {
          name: 'cross',
          root: 'test',
          include: ['**/*.test.ts'],
          exclude: ['e2e/**', 'node_modules/**'],
          environment: 'node',
        },
      },
    ],
  },
});
