import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

// dev.sh against fake `node`, `npm`, `pnpm` and `apt-get` on PATH: no download, no real install.
const DEV_SH = join(import.meta.dirname, '../../dev.sh');
const BASH = ['/bin/bash', '/usr/bin/bash'].find((path) => existsSync(path)) as string;
const work = mkdtempSync(join(tmpdir(), 'multidrm-dev-sh-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

let dirs = 0;
function bin(scripts: Record<string, string>): string {
  const dir = join(work, `bin-${++dirs}`);
  mkdirSync(dir);
  // What dev.sh and the fake npm call besides the fakes.
  for (const tool of ['dirname', 'mkdir', 'chmod']) {
    const real = [`/usr/bin/${tool}`, `/bin/${tool}`].find((path) => existsSync(path));
    if (real) symlinkSync(real, join(dir, tool));
  }
  for (const [name, body] of Object.entries(scripts)) {
    writeFileSync(join(dir, name), `#!${BASH}\n${body}\n`);
    chmodSync(join(dir, name), 0o755);
  }
  return dir;
}
const fakeNode = (version: string) => `[ "$1" = --version ] && echo ${version} && exit 0; exit 9`;
const fakePnpm = 'echo "pnpm with node $(node --version): $*"';
// Installs a fake Node 24 and pnpm into the --prefix, as `npm install node@24 pnpm@...` would.
const fakeNpm = (log: string) => `
echo "npm $*" >> ${log}
prefix=$3
mkdir -p "$prefix/node_modules/.bin"
printf '#!${BASH}\\n${fakeNode('v24.99.0')}\\n' > "$prefix/node_modules/.bin/node"
printf '#!${BASH}\\n${fakePnpm}\\n' > "$prefix/node_modules/.bin/pnpm"
chmod +x "$prefix/node_modules/.bin/node" "$prefix/node_modules/.bin/pnpm"`;

function devSh(args: string[], path: string, env: Record<string, string> = {}) {
  const result = spawnSync(BASH, [DEV_SH, ...args], {
    encoding: 'utf8',
    env: { PATH: path, HOME: work, MULTIDRM_TOOLS_DIR: join(work, `tools-${++dirs}`), ...env },
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe('dev.sh picks a Node that runs the TypeScript sources', () => {
  it('takes 22.18 and newer in 22, 24 and 26 on, and refuses 22.12 to 22.17, 20, 23 and 25', () => {
    const versions = ['v20.19.0', 'v22.12.0', 'v22.17.1', 'v22.18.0', 'v22.21.0', 'v23.11.0'];
    versions.push('v24.0.0', 'v25.2.1', 'v26.0.0', 'nonsense');
    const script = `source "$0"; for v in "$@"; do node_version_ok "$v" && echo "$v yes" || echo "$v no"; done`;
    const result = spawnSync(BASH, ['-c', script, DEV_SH, ...versions], { encoding: 'utf8' });
    expect(result.stdout.trim().split('\n')).toEqual([
      'v20.19.0 no',
      'v22.12.0 no',
      'v22.17.1 no',
      'v22.18.0 yes',
      'v22.21.0 yes',
      'v23.11.0 no',
      'v24.0.0 yes',
      'v25.2.1 no',
      'v26.0.0 yes',
      'nonsense no',
    ]);
  });

  it('below the floor it fetches Node 24 and pnpm, runs the command with them and says how to put them on PATH', () => {
    const log = join(work, 'npm-below.log');
    const path = bin({ node: fakeNode('v22.17.1'), npm: fakeNpm(log) });
    const tools = join(work, 'tools-below');
    const r = devSh(['exec', 'multidrm', '--help'], path, { MULTIDRM_TOOLS_DIR: tools });
    expect(r.code).toBe(0);
    expect(r.stdout.trim().split('\n').at(-1)).toBe(
      'pnpm with node v24.99.0: exec multidrm --help',
    );
    expect(r.stderr).toContain(`installing node@24 and pnpm@`);
    expect(r.stderr).toContain(`export PATH="${tools}/node_modules/.bin:$PATH"`);
    expect(r.stderr).toContain('./dev.sh <command>');
  });

  it('with Node 22.18 and pnpm on PATH it runs them and fetches nothing', () => {
    const log = join(work, 'npm-ok.log');
    const path = bin({ node: fakeNode('v22.18.0'), pnpm: fakePnpm, npm: fakeNpm(log) });
    const r = devSh(['bench', '--help'], path);
    expect(r.code).toBe(0);
    expect(r.stdout.trim().split('\n').at(-1)).toBe('pnpm with node v22.18.0: bench --help');
    expect(existsSync(log)).toBe(false);
    expect(r.stderr).not.toContain('export PATH');
  });

  it('without npm and a usable Node it says what to install', () => {
    const r = devSh(['demo:web'], bin({ node: fakeNode('v20.19.0'), 'apt-get': 'exit 0' }));
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/needs npm/);
    expect(r.stderr).toMatch(/(sudo )?apt-get update && (sudo )?apt-get install -y npm/);
  });
});

describe('dev.sh installs what the command needs', () => {
  const plan = (command: string, have: string, stale: boolean) =>
    spawnSync(
      BASH,
      ['-c', 'source "$0"; install_plan "$@"', DEV_SH, command, have, String(stale)],
      {
        encoding: 'utf8',
      },
    ).stdout.trim();

  it("the demo's commands install the demo's part only; the others the whole workspace", () => {
    expect(plan('demo:web', '', true)).toBe('demo');
    expect(plan('demo', '', true)).toBe('demo');
    expect(plan('test', '', true)).toBe('all');
    expect(plan('bench', '', true)).toBe('all');
  });

  it("after the demo's part, a test run installs the rest; nothing is installed twice", () => {
    expect(plan('test', 'demo', false)).toBe('all');
    expect(plan('demo:web', 'demo', false)).toBe('none');
    expect(plan('test', 'all', false)).toBe('none');
    expect(plan('demo:web', 'all', false)).toBe('none');
  });

  it('a lockfile newer than the install updates what is there, never less', () => {
    expect(plan('demo:web', 'all', true)).toBe('all');
    expect(plan('demo:web', 'demo', true)).toBe('demo');
  });
});

describe('dev.sh checks the test prerequisites before it fetches anything', () => {
  const machine = () => {
    const log = join(work, `npm-prereq-${dirs}.log`);
    return {
      log,
      path: bin({ node: fakeNode('v20.19.0'), npm: fakeNpm(log), 'apt-get': 'exit 0' }),
    };
  };

  it('test without Chromium and ffmpeg names both and the command that installs them', () => {
    const { log, path } = machine();
    const r = devSh(['test'], path, { CHROME_PATH: '/nonexistent/chromium' });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      'CHROME_PATH is "/nonexistent/chromium", which is not an executable file',
    );
    expect(r.stderr).toContain('no ffmpeg on PATH');
    expect(r.stderr).toMatch(
      /(sudo )?apt-get update && (sudo )?apt-get install -y chromium ffmpeg\n/,
    );
    expect(r.stderr).toContain('MULTIDRM_E2E=skip');
    expect(existsSync(log)).toBe(false);
  });

  it('no argument means test, and is checked the same way', () => {
    const r = devSh([], machine().path, { CHROME_PATH: '/nonexistent/chromium' });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/install -y chromium ffmpeg\n/);
  });

  it('MULTIDRM_E2E=skip leaves Chromium out; test:e2e needs Chromium only', () => {
    const skip = devSh(['test'], machine().path, { MULTIDRM_E2E: ' Skip ', CHROME_PATH: '/x' });
    expect(skip.stderr).toMatch(/needs ffmpeg \(sample-content tests\): no ffmpeg on PATH\./);
    expect(skip.stderr).toMatch(/install -y ffmpeg\n/);
    const e2e = devSh(['test:e2e'], machine().path, { CHROME_PATH: '/x' });
    expect(e2e.stderr).toMatch(/needs Chromium \(real-browser tests\): CHROME_PATH/);
    expect(e2e.stderr).toMatch(/install -y chromium\n/);
  });

  it('names only what is missing: ffmpeg alone when Chromium is there', () => {
    const r = devSh(['test'], machine().path, { CHROME_PATH: '/bin/sh' });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /`pnpm test` needs ffmpeg \(sample-content tests\): no ffmpeg on PATH\./,
    );
    expect(r.stderr).not.toContain('Chromium');
    expect(r.stderr).toMatch(/install -y ffmpeg\n/);
  });

  it('names redis-server (the shared-store tests) when REDIS_SERVER points at nothing', () => {
    const r = devSh(['test'], machine().path, {
      CHROME_PATH: '/bin/sh',
      REDIS_SERVER: '/nonexistent/redis-server',
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      'needs ffmpeg (sample-content tests) and redis-server (shared-store tests): no ffmpeg on PATH; REDIS_SERVER is "/nonexistent/redis-server", which is not an executable file.',
    );
    expect(r.stderr).toMatch(/install -y ffmpeg redis-server\n/);
  });

  it('other commands are not held up by the check', () => {
    const { log, path } = machine();
    const r = devSh(['demo:web'], path, { CHROME_PATH: '/nonexistent/chromium' });
    expect(r.code).toBe(0);
    expect(r.stdout.trim().split('\n').at(-1)).toBe('pnpm with node v24.99.0: demo:web');
    expect(existsSync(log)).toBe(true);
  });
});
