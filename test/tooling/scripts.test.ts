import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { goal, goalReport, MISSED_MARKER } from '../../scripts/bench-goal.ts';

const root = join(import.meta.dirname, '../..');
function script(name: string, args: string[]) {
  const r = spawnSync(process.execPath, [join(root, 'scripts', name), ...args], {
    encoding: 'utf8',
    timeout: 30_000,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}
const noStackTrace = (text: string) => expect(text).not.toMatch(/^\s+at /m);

describe('pnpm bench', () => {
  it('--help prints the usage and the benchmark names, and runs nothing', () => {
    const r = script('bench.ts', ['--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^Usage: pnpm bench \[NAME \.\.\.\]/);
    expect(r.stdout).toMatch(/Names: .*\btoken\b.*\breliability-load\b/);
    expect(r.stdout).not.toContain('## ');
  });

  it('an unknown name says so, suggests the nearest, lists the names and exits 2', () => {
    const r = script('bench.ts', ['tokn']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^pnpm bench: no benchmark matches "tokn" \(did you mean token\?\)\./);
    expect(r.stderr).toMatch(/\nNames: .*\bgateway-padding\b/);
    noStackTrace(r.stderr);
  });

  it('one known and one unknown name still runs nothing', () => {
    const r = script('bench.ts', ['token', 'nothing-like-it']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('no benchmark matches "nothing-like-it".');
    expect(r.stdout).toBe('');
  });

  it('an unknown option is a usage error', () => {
    const r = script('bench.ts', ['--fast']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^pnpm bench: unknown option "--fast"\n\nUsage:/);
  });
});

describe('bench goals', () => {
  it('a missed goal is marked in its cell and listed again in the closing report', () => {
    expect(goalReport()).toBeUndefined();
    expect(goal(true, 'cost <= 1.25x', 'token issue')).toBe('met: cost <= 1.25x');
    expect(goalReport()).toBe('all 1 goals met');
    expect(goal(false, 'within 5 %', 'gateway reader')).toBe(`${MISSED_MARKER}: within 5 %`);
    expect(goalReport()).toBe(`${MISSED_MARKER}: 1 of 2 goals\n  - gateway reader: within 5 %`);
    expect(MISSED_MARKER).toBe('!! MISSED');
  });
});

describe('pnpm soak', () => {
  it('--help prints the usage and exits 0 without starting', () => {
    const r = script('soak.ts', ['--help']);
    expect(r).toMatchObject({ code: 0, stderr: '' });
    expect(r.stdout).toMatch(/^Usage: pnpm soak \[--seconds N\] \[--rate N\]/);
  });

  it('an unknown option gets the nearest name and the usage, exit 2, no stack trace', () => {
    const r = script('soak.ts', ['--secs', '30']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /^pnpm soak: Unknown option '--secs' \(did you mean --seconds\?\)\n\nUsage:/,
    );
    noStackTrace(r.stderr);
  });

  it('a rate that is not a positive number is refused with the usage', () => {
    const r = script('soak.ts', ['--rate', '0']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^pnpm soak: --seconds and --rate must be positive numbers\n\nUsage:/);
  });
});
