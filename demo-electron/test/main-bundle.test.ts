import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { beforeAll, expect, test } from 'vitest';
import { buildElectron } from '../scripts/build-electron.ts';
import { buildRenderer, DEMO_ROOT } from '../scripts/build-renderer.ts';

// The bundled main process (dist/main/index.js, what Electron runs) under plain Node, with a fake
// `electron` module: it must start the stack, lock the session down, register the IPC contract and
// load the built page.

const MAIN = fileURLToPath(new URL('../dist/main/index.js', import.meta.url));
const REGISTER = fileURLToPath(new URL('./support/register-fake-electron.mjs', import.meta.url));

let markers: { marker: string; value: unknown }[] = [];
let status: number | null;
let stderr = '';

beforeAll(async () => {
  await buildRenderer();
  await buildElectron();
  const run = spawnSync(process.execPath, ['--import', REGISTER, MAIN], {
    encoding: 'utf8',
    env: { ...process.env, FAKE_ELECTRON_APP_PATH: DEMO_ROOT },
    timeout: 30_000,
  });
  status = run.status;
  stderr = run.stderr;
  markers = run.stdout
    .split('\n')
    .map((line) => /^([A-Z]+) (.*)$/.exec(line))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => ({ marker: m[1] as string, value: JSON.parse(m[2] as string) as unknown }));
});

const values = (marker: string) => markers.filter((m) => m.marker === marker).map((m) => m.value);

test('the bundled main process starts, loads the built page and quits cleanly', () => {
  expect(stderr).toBe('');
  expect(status).toBe(0);
  const [loaded] = values('LOADED') as {
    url: string;
    status: number;
    csp: string;
    title: string;
  }[];
  // The page comes through the app's own scheme, not a loopback server.
  expect(loaded?.url).toBe('multidrm-demo://app/');
  expect(loaded).toMatchObject({ status: 200, title: 'multidrm demo' });
  expect(loaded?.csp).toContain("script-src 'self'");
});

test('it opens the window with the sandboxed preload from dist/preload', () => {
  const [prefs] = values('WINDOW') as Record<string, unknown>[];
  expect(prefs).toMatchObject({ contextIsolation: true, sandbox: true, nodeIntegration: false });
  expect(prefs?.['preload']).toBe(
    fileURLToPath(new URL('../dist/preload/index.cjs', import.meta.url)),
  );
});

test('it registers its privileged scheme and serves it with a protocol handler', () => {
  expect(values('SCHEMES')).toEqual([
    [
      {
        scheme: 'multidrm-demo',
        privileges: {
          standard: true,
          secure: true,
          supportFetchAPI: true,
          corsEnabled: true,
          stream: true,
        },
      },
    ],
  ]);
  expect(values('PROTOCOL')).toEqual(['multidrm-demo']);
});

test("it restricts permissions and registers exactly the contract's channels", () => {
  expect(values('PERMISSIONS')).toEqual(['request handler', 'check handler']);
  expect((values('IPC') as string[]).sort()).toEqual([
    'demo:get-setup',
    'demo:prepare-play',
    'demo:set-real-service',
  ]);
});
