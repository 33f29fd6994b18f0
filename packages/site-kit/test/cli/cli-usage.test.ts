import { describe, expect, it } from 'vitest';
import { cli } from '../support/cli.ts';

describe('multidrm usage errors', () => {
  it('token --help lists the token commands, and token alone does the same as a usage error', async () => {
    const help = await cli(['token', '--help']);
    expect(help.code).toBe(0);
    for (const command of ['create', 'inspect', 'convert'])
      expect(help.stdout).toContain(`multidrm token ${command}`);
    const alone = await cli(['token']);
    expect(alone.code).toBe(2);
    expect(alone.stdout).toBe(help.stdout);
  });

  it('help COMMAND prints that command’s help', async () => {
    const r = await cli(['help', 'token', 'create']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^Usage: multidrm token create --cid CID/);
  });

  it('token create names every missing option at once, with the variables that stand in', async () => {
    const r = await cli(['token', 'create']);
    expect(r).toEqual({
      code: 2,
      stdout: '',
      stderr:
        'error USAGE: --site-id (or set MULTIDRM_SITE_ID), --site-key (or set MULTIDRM_SITE_KEY), ' +
        '--access-key (or set MULTIDRM_ACCESS_KEY) and --cid are required\n',
    });
  });

  it('an option given through its environment variable is not reported missing', async () => {
    const r = await cli(['token', 'create', '--site-id', 'S'], {
      env: { MULTIDRM_SITE_KEY: 'k'.repeat(32) },
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      'error USAGE: --access-key (or set MULTIDRM_ACCESS_KEY) and --cid are required\n',
    );
  });

  it('missing options are reported before the policy is read', async () => {
    const r = await cli(['token', 'create', '--policy', '@/nonexistent/policy.json']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^error USAGE: --site-id .* are required\n$/);
  });

  it.each([
    [['token', 'create', '--site-ky', 'x'], '--site-key', 'token create'],
    [['token', 'create', '--sitekey', 'x'], '--site-key', 'token create'],
    [['token', 'create', '--cdi', 'm'], '--cid', 'token create'],
    [['token', 'inspect', '--validty', '60', 't'], '--validity', 'token inspect'],
    [['encrypt', '--site-kye', 'k', 'text'], '--site-key', 'encrypt'],
  ])('a typo in an option gets the nearest name: %j', async (args, meant, command) => {
    const r = await cli(args);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      `error USAGE: Unknown option '${args.find((a) => a.startsWith('--'))}'; did you mean ${meant}? (see: multidrm ${command} --help)\n`,
    );
  });

  it('an option nothing resembles gets no guess', async () => {
    const r = await cli(['token', 'create', '--zzzzzz', 'x']);
    expect(r.stderr).toBe(
      "error USAGE: Unknown option '--zzzzzz' (see: multidrm token create --help)\n",
    );
  });

  it.each([
    [['tokn', 'create'], 'tokn', 'token create'],
    [['token', 'creat'], 'token creat', 'token create'],
    [['token', 'inpsect', 't'], 'token inpsect', 'token inspect'],
    [['decrpyt', 'x'], 'decrpyt', 'decrypt'],
  ])('a typo in a command gets the nearest command: %j', async (args, typed, meant) => {
    const r = await cli(args);
    expect(r).toEqual({
      code: 2,
      stdout: '',
      stderr: `error USAGE: unknown command "${typed}"; did you mean "${meant}"? (see: multidrm --help)\n`,
    });
  });

  it('an unknown token command lists the token commands', async () => {
    const r = await cli(['token', 'frobnicate']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      'error USAGE: unknown command "token frobnicate"; the token commands: create, inspect, convert (see: multidrm --help)\n',
    );
  });
});
