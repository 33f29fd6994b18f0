import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

// happy-dom whose page console is shown with a failing test only (test/support/page-console.ts).
const happyDomEnvironment = new URL('./test/support/happy-dom-environment.ts', import.meta.url)
  .pathname;
const pageConsole = new URL('./test/support/page-console.ts', import.meta.url).pathname;

// One vitest project per package plus the cross-package suite in test/. `pnpm test` runs them all.
export default defineConfig({
  test: {
    reporters: ['default', './test/support/summary-reporter.ts'],
    // vitest's default for a run is one worker less than the cores: one worker on a 2-core machine,
    // and every file in a row. The suite mostly waits (browsers playing in real time, servers,
    // child processes), so a worker per core, browser files included (each launches its own
    // Chromium and servers on ephemeral ports), took a 2-core run from 645 to 402 s.
    maxWorkers: availableParallelism(),
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
          environment: happyDomEnvironment,
          setupFiles: [pageConsole],
        },
      },
      {
        // examples/vitest-msw is the consumer suite a user copies, not a workspace package: its bare
        // imports (msw, shaka-player, @multidrm/*) resolve from test/'s dependencies, as from the
        // user's own node_modules.
        plugins: [
          {
            name: 'example-dependencies-from-test',
            resolveId(source, importer, options) {
              if (!importer?.includes('/examples/vitest-msw/') || /^[./]/.test(source)) return null;
              const from = new URL('./test/package.json', import.meta.url).pathname;
              return this.resolve(source, from, { ...options, skipSelf: true });
            },
          },
        ],
        test: {
          name: 'example-vitest-msw',
          root: 'examples/vitest-msw',
          include: ['**/*.test.ts'],
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
      {
        test: {
          name: 'e2e',
          root: 'test',
          include: ['e2e/**/*.test.ts'],
          environment: 'node',
          // Real browser, real servers: generous limits; every in-page wait has its own timeout.
          testTimeout: 60_000,
          hookTimeout: 120_000,
        },
      },
      {
        test: {
          name: 'demo',
          root: 'demo-electron',
          include: ['test/**/*.test.ts'],
          environment: 'node',
          testTimeout: 60_000,
          hookTimeout: 120_000,
        },
      },
    ],
  },
});
