#!/usr/bin/env node
// Launcher for the workspace: runs the TypeScript CLI directly. Node 24 strips types by default;
// Node 22.12 to 22.17 need --experimental-strip-types, so the launcher re-runs itself with it.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const [major, minor] = process.versions.node.split('.').map(Number);
if (major < 22 || (major === 22 && minor < 12)) {
  process.stderr.write(
    `multidrm-emulator: Node ${process.versions.node} is too old; it needs Node 22.12 or newer.\n`,
  );
  process.exit(1);
}

if (process.features.typescript) {
  await import('../src/cli/main.ts');
} else {
  const child = spawn(
    process.execPath,
    [
      '--experimental-strip-types',
      '--disable-warning=ExperimentalWarning',
      fileURLToPath(import.meta.url),
      ...process.argv.slice(2),
    ],
    { stdio: 'inherit' },
  );
  for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
  child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
}
