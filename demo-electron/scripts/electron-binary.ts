import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

export type ElectronBinary = { found: true; path: string } | { found: false; reason: string };

/** The electron package's folder, found without running its index.js (which downloads). */
function electronPackageDir(): string | undefined {
  try {
    const require = createRequire(import.meta.url);
    return dirname(require.resolve('electron/package.json'));
  } catch {
    return undefined;
  }
}

/**
 * Where the Electron binary is, by the same rules as the electron package's index.js, but without
 * its side effect of downloading it.
 */
export function findElectronBinary(env: NodeJS.ProcessEnv = process.env): ElectronBinary {
  const dir = electronPackageDir();
  if (dir === undefined) return { found: false, reason: 'the electron package is not installed' };
  const pathFile = join(dir, 'path.txt');
  const relative = existsSync(pathFile) ? readFileSync(pathFile, 'utf8').trim() : undefined;
  const override = env['ELECTRON_OVERRIDE_DIST_PATH'];
  const path = override
    ? join(override, relative || 'electron')
    : relative && join(dir, 'dist', relative);
  if (path && existsSync(path)) return { found: true, path };
  return {
    found: false,
    reason: path ? `${path} does not exist` : 'the Electron binary was never downloaded',
  };
}

/** Runs the electron package's own installer once (it fetches the binary from the internet). */
export function tryDownloadElectron(timeoutMs = 180_000): { ok: boolean; output: string } {
  const dir = electronPackageDir();
  if (dir === undefined) return { ok: false, output: 'the electron package is not installed' };
  const result = spawnSync(process.execPath, [join(dir, 'install.js')], {
    encoding: 'utf8',
    timeout: timeoutMs,
  });
  const output = `${result.stdout ?? ''}${result.stderr ?? ''}`.trim();
  return { ok: result.status === 0, output };
}

export const NO_ELECTRON_MESSAGE = [
  'The Electron binary could not be fetched: it is downloaded from the internet on first use, and this',
  'machine seems to have no general internet access (package registries only).',
  '',
  'Run the same demo in a browser instead:',
  '',
  '    pnpm demo:web',
  '',
  'It starts the same stack (site, license-service emulator, sample content) and serves the same page',
  'at http://127.0.0.1:PORT. On a machine with internet access, `pnpm demo` downloads Electron once.',
].join('\n');
