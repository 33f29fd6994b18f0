#!/usr/bin/env node
// Runs the TypeScript source directly: Node >= 22.18 strips types by itself; 22.12–22.17 need the flag,
// so this re-runs itself with it. The published package points its bin at the compiled dist instead.
import { spawnSync } from 'node:child_process';

if (process.features.typescript) {
  await import('../src/cli/main.ts');
} else {
  const { status } = spawnSync(
    process.execPath,
    [
      '--experimental-strip-types',
      '--disable-warning=ExperimentalWarning',
      ...process.argv.slice(1),
    ],
    { stdio: 'inherit' },
  );
  process.exitCode = status ?? 1;
}
