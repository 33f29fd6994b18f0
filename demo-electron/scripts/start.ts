// `pnpm demo`: builds the page, main and preload with vite, then launches Electron.
import { spawn } from 'node:child_process';
import { buildElectron } from './build-electron.ts';
import { buildRenderer, DEMO_ROOT } from './build-renderer.ts';
import { findElectronBinary, NO_ELECTRON_MESSAGE, tryDownloadElectron } from './electron-binary.ts';

try {
  await buildRenderer();
  await buildElectron();
} catch (error) {
  console.error(
    `The demo could not be built: ${error instanceof Error ? error.message : String(error)}`,
  );
  process.exit(1);
}

let binary = findElectronBinary();
let installerSaid = '';
if (!binary.found && process.env['ELECTRON_SKIP_BINARY_DOWNLOAD'] !== '1') {
  console.log('Fetching the Electron binary (once)…');
  // Only the installer's last line: enough to tell a network failure from anything else.
  installerSaid = tryDownloadElectron().output.split('\n').filter(Boolean).at(-1) ?? '';
  binary = findElectronBinary();
}
if (!binary.found) {
  console.error(NO_ELECTRON_MESSAGE);
  if (installerSaid) console.error(`\n(The electron package's installer said: ${installerSaid})`);
  process.exit(1);
}

const child = spawn(binary.path, [DEMO_ROOT], { stdio: 'inherit' });
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => child.kill(signal));
