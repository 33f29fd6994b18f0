import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { describe, expect, test } from 'vitest';
import { buildElectron } from '../scripts/build-electron.ts';
import { buildRenderer, DEMO_ROOT } from '../scripts/build-renderer.ts';
import { findElectronBinary } from '../scripts/electron-binary.ts';
import { choose, waitForPlayback, type Page } from './support/demo-page.ts';

// The real Electron app, where its binary exists. Where it does not (no internet to fetch it), this
// says so loudly and checks that `pnpm demo` explains it, rather than passing in silence.

interface PlaywrightElectron {
  _electron: {
    launch(options: {
      executablePath: string;
      args: string[];
      env: Record<string, string>;
    }): Promise<{
      firstWindow(): Promise<Page>;
      close(): Promise<void>;
    }>;
  };
}

const binary = findElectronBinary();
const START = fileURLToPath(new URL('../scripts/start.ts', import.meta.url));

describe('the Electron app', () => {
  if (binary.found) {
    test('launches, keeps Node out of the page, exposes the bridge and plays', async () => {
      await buildRenderer();
      await buildElectron();
      // playwright-core is a dependency of the workspace's test package.
      const require = createRequire(new URL('../../test/e2e/support/chromium.ts', import.meta.url));
      const { _electron } = (await import(
        require.resolve('playwright-core')
      )) as PlaywrightElectron;
      const env = { ...process.env };
      delete env['ELECTRON_RUN_AS_NODE'];
      const app = await _electron.launch({
        executablePath: binary.path,
        args: [DEMO_ROOT],
        env: env as Record<string, string>,
      });
      try {
        const page = await app.firstWindow();
        const globals = await page.evaluate(() => ({
          require: typeof (window as unknown as { require?: unknown }).require,
          process: typeof (window as unknown as { process?: unknown }).process,
          bridge: Object.keys(
            (window as unknown as Record<string, object>)['multidrmDemo'] ?? {},
          ).sort(),
        }));
        expect(globals).toEqual({
          require: 'undefined',
          process: 'undefined',
          bridge: ['getSetup', 'preparePlay', 'setRealService'],
        });
        expect(await page.textContent('#shell')).toBe('Electron');
        await choose(page, { mode: 'token' });
        expect(await waitForPlayback(page)).toBeGreaterThan(2);
      } finally {
        await app.close();
      }
    });
  } else {
    test('is not launched: the Electron binary is unavailable here, and `pnpm demo` says so', () => {
      console.warn(
        [
          '',
          '!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!',
          '!! ELECTRON NOT LAUNCHED: the Electron binary is not available on this machine',
          `!! (${binary.reason}). The real-window test did NOT run; the demo's page,`,
          '!! stack and main process are covered by the web e2e and Node tests instead.',
          '!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!',
          '',
        ].join('\n'),
      );
      expect(binary.found).toBe(false);
      // The download is skipped here: this branch runs only where it already could not happen.
      const run = spawnSync(process.execPath, [START], {
        encoding: 'utf8',
        env: { ...process.env, ELECTRON_SKIP_BINARY_DOWNLOAD: '1' },
        timeout: 60_000,
      });
      expect(run.status).toBe(1);
      expect(run.stderr).toContain('The Electron binary could not be fetched');
      expect(run.stderr).toContain('pnpm demo:web');
      expect(run.stderr).not.toMatch(/^\s+at /m);
    });
  }
});
