import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { verifyLicenseToken } from '../../src/index.ts';
import { cli } from '../support/cli.ts';
import { vectors } from '../../../../test/support/vectors.ts';

const v = vectors.token[0]!;
const SITE = ['--site-id', v.site_id, '--site-key', v.site_key, '--access-key', v.access_key];
const KEYS = ['--site-key', v.site_key, '--access-key', v.access_key];

describe('multidrm token create', () => {
  it('reproduces the vector token byte for byte', async () => {
    const r = await cli([
      'token',
      'create',
      ...SITE,
      '--cid',
      v.cid,
      '--user-id',
      v.user_id,
      '--drm-type',
      v.drm_type,
      '--policy',
      v.token_data,
      '--timestamp',
      v.timestamp,
    ]);
    expect(r).toEqual({ code: 0, stdout: `${v.expected.token}\n`, stderr: '' });
  });

  it('takes the keys from the environment and the policy from a file, with the raw-digest reading', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'multidrm-cli-'));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    writeFileSync(join(dir, 'policy.json'), v.token_data);
    const r = await cli(
      [
        'token',
        'create',
        '--cid',
        v.cid,
        '--user-id',
        v.user_id,
        '--drm-type',
        v.drm_type,
        '--policy',
        `@${join(dir, 'policy.json')}`,
        '--timestamp',
        v.timestamp,
        '--hash',
        'raw-digest',
      ],
      {
        env: {
          MULTIDRM_SITE_ID: v.site_id,
          MULTIDRM_SITE_KEY: v.site_key,
          MULTIDRM_ACCESS_KEY: v.access_key,
        },
      },
    );
    expect(r.stdout).toBe(`${v.expected.token_raw_digest}\n`);
    expect(r.code).toBe(0);
  });

  it('issues a token for now that verifies', async () => {
    const r = await cli(['token', 'create', ...SITE, '--cid', 'movie']);
    expect(r.code).toBe(0);
    const result = verifyLicenseToken(r.stdout.trim(), {
      siteKey: v.site_key,
      accessKey: v.access_key,
    });
    expect(result).toMatchObject({ cid: 'movie', userId: 'LICENSETOKEN', drmType: 'PlayReady' });
  });

  it('exits 1 with the code and the field path for a policy that breaks a rule', async () => {
    const r = await cli([
      'token',
      'create',
      ...SITE,
      '--cid',
      'm',
      '--policy',
      '{"playback_policy":{"duration":10}}',
    ]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(
      'error INVALID_POLICY: policy.playback_policy.duration: is applied only when limit is true; set "limit": true or remove duration\n',
    );
  });

  it('exits 1 for policy text that is not JSON, and for a missing policy file', async () => {
    const bad = await cli(['token', 'create', ...SITE, '--cid', 'm', '--policy', '{limit:true}']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/^error INVALID_POLICY: --policy is not valid JSON/);
    const missing = await cli([
      'token',
      'create',
      ...SITE,
      '--cid',
      'm',
      '--policy',
      '@/nonexistent/p.json',
    ]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(
      /^error INVALID_INPUT: --policy @\/nonexistent\/p.json: cannot read the file \(ENOENT\)/,
    );
  });

  it('exits 2 for a missing key, naming the flag and the environment variable', async () => {
    const r = await cli(['token', 'create', '--site-id', 'S', '--access-key', 'a', '--cid', 'm']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('error USAGE: --site-key is required (or set MULTIDRM_SITE_KEY)\n');
  });

  it('exits 2 for an unknown flag', async () => {
    const r = await cli(['token', 'create', ...SITE, '--cid', 'm', '--polcy', '{}']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /^error USAGE: Unknown option '--polcy'; did you mean --policy\? \(see: multidrm token create --help\)/,
    );
  });

  it('never echoes a bad site key', async () => {
    const r = await cli([
      'token',
      'create',
      '--site-id',
      'S',
      '--site-key',
      'SECRET-but-short',
      '--access-key',
      'a',
      '--cid',
      'm',
    ]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^error INVALID_SITE_KEY: The site key must be exactly 32 bytes/);
    expect(r.stderr).not.toContain('SECRET-but-short');
  });
});

describe('multidrm token inspect', () => {
  const now = ['--now', '2019-07-17T08:57:30Z'];

  it('decodes every field without keys and says it did not verify', async () => {
    const r = await cli(['token', 'inspect', v.expected.token]);
    expect(r.code).toBe(0);
    for (const field of [v.drm_type, v.site_id, v.user_id, v.cid, v.timestamp])
      expect(r.stdout).toContain(field);
    expect(r.stdout).toMatch(/verified +not checked/);
  });

  it('verifies and decrypts with keys, as JSON', async () => {
    const r = await cli(['token', 'inspect', v.expected.token, ...KEYS, ...now, '--json']);
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout) as {
      verified: boolean;
      policy: unknown;
      expiresAt: string;
    };
    expect(report.verified).toBe(true);
    expect(report.policy).toEqual(JSON.parse(v.token_data));
    expect(report.expiresAt).toBe('2019-07-17T09:07:04Z');
  });

  it('reads the token from standard input', async () => {
    const r = await cli(['token', 'inspect', '-', ...KEYS, ...now], {
      stdin: `${v.expected.token}\n`,
    });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/verified +yes: hash matches/);
  });

  it('exits 1 with TOKEN_EXPIRED and by how much', async () => {
    const r = await cli([
      'token',
      'inspect',
      v.expected.token,
      ...KEYS,
      '--now',
      '2019-07-17T08:59:04Z',
      '--validity',
      '60',
    ]);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/verified +NO: TOKEN_EXPIRED/);
    expect(r.stderr).toMatch(
      /^error TOKEN_EXPIRED: The token expired 60 s ago: it is valid for 60 s/,
    );
    const byDefault = await cli([
      'token',
      'inspect',
      v.expected.token,
      ...KEYS,
      '--now',
      '2019-07-17T09:08:04Z',
    ]);
    expect(byDefault.stderr).toMatch(
      /^error TOKEN_EXPIRED: The token expired 60 s ago: it is valid for 600 s/,
    );
  });

  it('exits 1 with HASH_MISMATCH and the hint to switch hash readings', async () => {
    const r = await cli(['token', 'inspect', v.expected.token_raw_digest, ...KEYS, ...now]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^error HASH_MISMATCH: .*hashEncoding 'raw-digest'/);
    const ok = await cli([
      'token',
      'inspect',
      v.expected.token_raw_digest,
      ...KEYS,
      ...now,
      '--hash',
      'raw-digest',
    ]);
    expect(ok.code).toBe(0);
  });

  it('exits 1 with DECRYPT_FAILED for a wrong site key, in one sentence that names the site key once', async () => {
    const wrongKey = ['--site-key', 'b'.repeat(32), '--access-key', v.access_key];
    const r = await cli(['token', 'inspect', v.expected.token, ...wrongKey, ...now]);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/verified +NO: DECRYPT_FAILED\n$/);
    expect(r.stderr).toBe(
      'error DECRYPT_FAILED: The token data could not be decrypted: the site key is not the one the token was made with.\n',
    );
    expect(r.stderr).not.toContain('b'.repeat(32));
  });

  it('exits 1 with MALFORMED_TOKEN for garbage', async () => {
    const r = await cli(['token', 'inspect', 'not-a-token']);
    expect(r).toMatchObject({ code: 1, stdout: '' });
    expect(r.stderr).toMatch(/^error MALFORMED_TOKEN: /);
  });

  it('exits 2 when only one of the two keys is given', async () => {
    const r = await cli(['token', 'inspect', v.expected.token, '--site-key', v.site_key]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/needs both --site-key and --access-key/);
  });
});

describe('multidrm encrypt / decrypt', () => {
  const aes = vectors.aes[4]!;

  it('encrypt matches the vector, decrypt reverses it', async () => {
    const enc = await cli(['encrypt', '--site-key', aes.key, aes.plaintext]);
    expect(enc).toEqual({ code: 0, stdout: `${aes.ciphertext}\n`, stderr: '' });
    const dec = await cli(['decrypt', '--site-key', aes.key, aes.ciphertext]);
    expect(dec).toEqual({ code: 0, stdout: `${aes.plaintext}\n`, stderr: '' });
  });

  it('reads standard input with -, dropping one trailing newline', async () => {
    const r = await cli(['encrypt', '-'], {
      stdin: 'sample data\n',
      env: { MULTIDRM_SITE_KEY: 'a'.repeat(32) },
    });
    expect(r.stdout).toBe('MManHcZraU/jcWYK/cQRgw==\n');
  });

  it('exits 1 with DECRYPT_FAILED for a wrong key', async () => {
    const r = await cli(['decrypt', '--site-key', 'b'.repeat(32), aes.ciphertext]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^error DECRYPT_FAILED: /);
  });

  it('exits 1 with INVALID_BASE64 for text that is not base64', async () => {
    const r = await cli(['decrypt', '--site-key', aes.key, 'abc$']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^error INVALID_BASE64: /);
  });
});

describe('multidrm help and usage', () => {
  // Each of these spawns several real CLI processes in turn; a busy machine needs more than 5 s.
  it('every command has --help', { timeout: 30_000 }, async () => {
    for (const command of [
      ['--help'],
      ['token', 'create', '--help'],
      ['token', 'inspect', '--help'],
      ['encrypt', '--help'],
      ['decrypt', '-h'],
    ]) {
      const r = await cli(command);
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(/Usage/);
    }
  });

  it('exits 2 for an unknown command, and with usage for none', { timeout: 30_000 }, async () => {
    expect(await cli(['frobnicate'])).toMatchObject({
      code: 2,
      stderr: 'error USAGE: unknown command "frobnicate" (see: multidrm --help)\n',
    });
    const none = await cli([]);
    expect(none.code).toBe(2);
    expect(none.stdout).toMatch(/Usage/);
  });
});
