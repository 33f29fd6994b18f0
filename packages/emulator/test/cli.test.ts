import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTokenIssuer } from '@multidrm/site-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CID, KEY, KID, postLicense, TOKEN_SITE } from './helpers.ts';

const BIN = join(import.meta.dirname, '../bin/multidrm-emulator.js');
const dir = mkdtempSync(join(tmpdir(), 'multidrm-emulator-cli-'));
const good = join(dir, 'good.json');
const children: ChildProcessWithoutNullStreams[] = [];

beforeAll(() => {
  writeFileSync(
    good,
    JSON.stringify({ sites: [TOKEN_SITE], keys: { [CID]: { kid: KID, key: KEY } } }),
  );
});
afterAll(() => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

function launch(args: string[], nodeFlags: string[] = []): ChildProcessWithoutNullStreams {
  const child = spawn(process.execPath, [...nodeFlags, BIN, ...args], { stdio: 'pipe' });
  children.push(child);
  return child;
}

/** Resolves with the first stdout line, or rejects with stderr when the process ends first. */
function firstLine(child: ChildProcessWithoutNullStreams): Promise<string> {
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    const timer = setTimeout(() => reject(new Error(`no output in 20 s; stderr: ${err}`)), 20_000);
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    child.stdout.on('data', (c: Buffer) => {
      out += c.toString();
      const end = out.indexOf('\n');
      if (end >= 0) {
        clearTimeout(timer);
        resolve(out.slice(0, end));
      }
    });
    child.on('exit', () => {
      clearTimeout(timer);
      reject(new Error(`exited early; stderr: ${err}`));
    });
  });
}

/** Runs the CLI to its end: exit code and both outputs. */
async function runToEnd(
  args: string[],
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = launch(args);
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  const [code] = (await once(child, 'exit')) as [number | null];
  return { code, stdout, stderr };
}

// Each test starts a Node process; on a busy machine that takes seconds, not milliseconds.
describe('multidrm-emulator CLI', { timeout: 30_000 }, () => {
  it('prints "listening on http://HOST:PORT" first, serves licenses, and exits 0 on SIGTERM', async () => {
    const child = launch(['--config', good]);
    const line = await firstLine(child);
    expect(line).toMatch(/^listening on http:\/\/127\.0\.0\.1:\d+$/);
    const url = line.slice('listening on '.length);
    const res = await postLicense(url, createTokenIssuer(TOKEN_SITE).issue({ cid: CID }));
    expect(res.status).toBe(200);
    child.kill('SIGTERM');
    const [code] = (await once(child, 'exit')) as [number | null];
    expect(code).toBe(0);
  });

  it('answers in the service dialect at /ri/licenseManager.do, and in the explain dialect when configured', async () => {
    const explain = join(dir, 'explain.json');
    writeFileSync(
      explain,
      JSON.stringify({
        sites: [TOKEN_SITE],
        keys: { [CID]: { kid: KID, key: KEY } },
        dialect: 'explain',
      }),
    );
    const expired = createTokenIssuer(TOKEN_SITE).issue({
      cid: CID,
      timestamp: '2020-01-01T00:00:00Z',
    });
    for (const [file, expected] of [
      [good, { status: 200, code: '7011' }],
      [explain, { status: 403, code: 'TOKEN_EXPIRED' }],
    ] as const) {
      const child = launch(['--config', file, '--quiet']);
      const url = (await firstLine(child)).slice('listening on '.length);
      const res = await postLicense(url, expired);
      expect(res.status).toBe(expected.status);
      expect(res.body['errorCode'] ?? res.body['error_code']).toBe(expected.code);
      child.kill('SIGTERM');
      await once(child, 'exit');
    }
  });

  it('without native type stripping, re-runs itself with --experimental-strip-types and stops on SIGINT', async () => {
    // Node 22.12 to 22.17 start without type stripping; --no-experimental-strip-types imitates them.
    const child = launch(
      ['--config', good, '--port', '0', '--quiet'],
      ['--no-experimental-strip-types'],
    );
    const line = await firstLine(child);
    expect(line).toMatch(/^listening on http:\/\/127\.0\.0\.1:\d+$/);
    const health = await fetch(`${line.slice('listening on '.length)}/health`);
    expect(health.status).toBe(200);
    child.kill('SIGINT');
    const [code] = (await once(child, 'exit')) as [number | null];
    expect(code).toBe(0);
  });

  it('prints one line per flow event after the first line, without the token', async () => {
    const child = launch(['--config', good]);
    const url = (await firstLine(child)).slice('listening on '.length);
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    const token = createTokenIssuer(TOKEN_SITE).issue({ cid: CID });
    await postLicense(url, token);
    await new Promise((r) => setTimeout(r, 100));
    child.kill('SIGTERM');
    await once(child, 'exit');
    expect(out).toMatch(/license-issued/);
    expect(out).not.toContain(token);
  });

  it('explains a missing config file', async () => {
    const { code, stderr, stdout } = await runToEnd(['--config', join(dir, 'absent.json')]);
    expect(code).toBe(1);
    expect(stdout).toBe('');
    expect(stderr).toMatch(/Cannot read the config file .*absent\.json: no such file/);
  });

  it('explains a config file that is not JSON, without quoting it', async () => {
    const file = join(dir, 'broken.json');
    writeFileSync(file, `{"sites": [{"siteKey": "${TOKEN_SITE.siteKey}" oops}]}`);
    const { code, stderr } = await runToEnd(['--config', file]);
    expect(code).toBe(1);
    expect(stderr).toMatch(/is not valid JSON \(error at line 1 column \d+\)/);
    expect(stderr).not.toContain(TOKEN_SITE.siteKey);
  });

  it('names every invalid field of the config, without echoing keys or a stack trace', async () => {
    const file = join(dir, 'invalid.json');
    const badKey = 'short-secret-key';
    writeFileSync(
      file,
      JSON.stringify({
        sites: [{ siteId: 'S', siteKey: badKey, accessKey: 'a' }],
        keys: { c: { kid: 'xyz', key: KEY } },
        gatewayTimeoutMs: 0,
      }),
    );
    const { code, stderr } = await runToEnd(['--config', file]);
    expect(code).toBe(1);
    expect(stderr).toContain('config.sites.0.siteKey: must be exactly 32 bytes');
    expect(stderr).toContain('config.keys.c');
    expect(stderr).toContain('config.gatewayTimeoutMs: must be more than 0');
    expect(stderr).not.toContain(badKey);
    expect(stderr).not.toMatch(/\n\s+at /);
  });

  it('explains usage errors with exit code 2', async () => {
    const none = await runToEnd([]);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/--config FILE\.json is required[\s\S]*Usage: multidrm-emulator/);
    const port = await runToEnd(['--config', good, '--port', 'eighty']);
    expect(port.code).toBe(2);
    expect(port.stderr).toContain('--port must be a whole number from 0 to 65535, got "eighty"');
  });

  it('names the nearest option for a mistyped one', async () => {
    const typo = await runToEnd(['--config', good, '--prot', '8080']);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toMatch(
      /^multidrm-emulator: Unknown option '--prot'; did you mean --port\?\n/,
    );
    const far = await runToEnd(['--config', good, '--verbose']);
    expect(far.stderr).toMatch(/^multidrm-emulator: Unknown option '--verbose'\n/);
  });

  it('explains a port already in use', async () => {
    const blocker: Server = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const { port } = blocker.address() as AddressInfo;
    try {
      const { code, stderr } = await runToEnd(['--config', good, '--port', String(port)]);
      expect(code).toBe(1);
      expect(stderr).toContain(`Port ${port} on 127.0.0.1 is already in use`);
    } finally {
      await new Promise((resolve) => blocker.close(resolve));
    }
  });
});
