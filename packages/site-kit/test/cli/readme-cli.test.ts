import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

// The README's CLI block, run as written by bash with `multidrm` on PATH: every line works and the
// outputs its comments promise are what the CLI prints.
const pkg = join(import.meta.dirname, '../..');
const readme = readFileSync(join(pkg, 'README.md'), 'utf8');
const block = /## CLI: `multidrm`[\s\S]*?```sh\n([\s\S]*?)```/.exec(readme)?.[1] ?? '';
const BIN = join(pkg, 'bin/multidrm.js');

describe("the README's CLI block", () => {
  // Seven CLI processes one after the other: a busy 2-core machine takes longer than vitest's 5 s
  // default to start them (a run failed on that, not on an output).
  it('runs as written, line after line', { timeout: 60_000 }, () => {
    expect(block).toContain('multidrm decrypt');
    const script = `set -euo pipefail\nmultidrm() { "${process.execPath}" "${BIN}" "$@"; }\n${block}`;
    const r = spawnSync('bash', ['-c', script], {
      encoding: 'utf8',
      // No standard input: bash reads ~/.bashrc when its input looks like a remote shell's.
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { PATH: process.env.PATH ?? '' },
    });
    // convert's warnings name the rules without a v2 counterpart; nothing may fail.
    expect(r.stderr).not.toMatch(/^error /m);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/verified +yes/);
    for (const line of block.split('\n')) {
      const promised = /^multidrm (?:en|de)crypt .*# (.+)$/.exec(line)?.[1];
      if (promised) expect(r.stdout).toContain(`${promised.trim()}\n`);
    }
  });
});
