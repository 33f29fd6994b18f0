#!/usr/bin/env node
// The multidrm-emulator command: starts the emulator and serves until SIGINT or SIGTERM.
import { runCli } from './run.ts';

const started = await runCli(process.argv.slice(2));
if (typeof started === 'number') {
  process.exitCode = started;
} else {
  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    started.close().then(
      () => process.exit(0),
      () => process.exit(0),
    );
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}
