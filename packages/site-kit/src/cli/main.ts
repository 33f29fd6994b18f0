#!/usr/bin/env node
import { readFile } from 'node:fs/promises';
import { text } from 'node:stream/consumers';
import { run } from './run.ts';

process.exitCode = await run(process.argv.slice(2), {
  stdout: (t) => process.stdout.write(t),
  stderr: (t) => process.stderr.write(t),
  readStdin: () => text(process.stdin),
  readFile: (path) => readFile(path, 'utf8'),
  env: process.env,
  now: () => Date.now(),
});
