import { describe, expect, it } from 'vitest';
import { vectorsV2 } from '../../../../test/support/vectors-v2.ts';
import { cli } from '../support/cli.ts';

const { common, vectors } = vectorsV2;
const SITE = [
  '--site-id',
  common.site_id,
  '--site-key',
  common.site_key,
  '--access-key',
  common.access_key,
];
const KEYS = ['--site-key', common.site_key, '--access-key', common.access_key];
const NOW = ['--now', '2024-01-15T09:31:00Z'];

describe('multidrm token create with a v2 policy', () => {
  for (const v of vectors) {
    it(`prints the v2 token of "${v.name}" byte for byte`, async () => {
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
        '--timestamp',
        common.timestamp,
        '--policy',
        v.policy_plaintext,
      ]);
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      expect(r.stdout).toBe(`${v.token}\n`);
    });
  }

  it('says --hash is irrelevant for v2, and still prints the same token', async () => {
    const v = vectors[0]!;
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
      '--timestamp',
      common.timestamp,
      '--policy',
      v.policy_plaintext,
      '--hash',
      'hex-text',
    ]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`${v.token}\n`);
    expect(r.stderr).toMatch(/^warning: --hash is ignored for a v2 policy/);
  });

  it('writes --response-format and --key-rotation into the token', async () => {
    const r = await cli([
      'token',
      'create',
      ...SITE,
      '--cid',
      'c',
      '--policy',
      '{"policy_version":2}',
      '--response-format',
      'json',
      '--key-rotation',
    ]);
    expect(r.code).toBe(0);
    const json = JSON.parse(Buffer.from(r.stdout.trim(), 'base64').toString('utf8')) as Record<
      string,
      unknown
    >;
    expect(json).toMatchObject({ response_format: 'json', key_rotation: true });
  });

  it('refuses a bad v2 member by its path and exits 1', async () => {
    const r = await cli([
      'token',
      'create',
      ...SITE,
      '--cid',
      'c',
      '--policy',
      '{"policy_version":2,"security_policy":[{"widevine":{"security_level":7}}]}',
    ]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(
      /^error INVALID_POLICY: policy.security_policy.0.widevine.security_level: must be one of 1, 2, 3, 4, 5/,
    );
  });
});

describe('multidrm token inspect with v2 tokens', () => {
  for (const v of vectors) {
    for (const layout of [{ layout: 'reference', token: v.token }, ...(v.other_layouts ?? [])]) {
      it(`verifies "${v.name}" (${layout.layout}) and reports version 2 in the same JSON shape`, async () => {
        const r = await cli(['token', 'inspect', layout.token, ...KEYS, ...NOW, '--json']);
        expect(r.code).toBe(0);
        const report = JSON.parse(r.stdout) as Record<string, unknown>;
        expect(Object.keys(report)).toEqual([
          'version',
          'fields',
          'verified',
          'policy',
          'expiresAt',
          'warnings',
        ]);
        expect(report).toMatchObject({
          version: 2,
          verified: true,
          expiresAt: '2024-01-15T09:40:00Z',
          warnings: [],
        });
        expect((report['fields'] as Record<string, unknown>)['cid']).toBe(v.cid);
      });
    }
  }

  it('hides content keys of v2 key arrays', async () => {
    const v = vectors[1]!;
    const r = await cli(['token', 'inspect', v.token, ...KEYS, ...NOW, '--json']);
    const policy = JSON.parse(r.stdout).policy as {
      external_key: { mpeg_cenc: { key: string }[] };
    };
    expect(policy.external_key.mpeg_cenc[0]!.key).toBe('ffee… (32 hex characters, hidden)');
    expect(r.stdout).not.toContain('ffeeddccbbaa99887766554433221100');
  });

  it('shows the v2 members and that response_format is outside the hash, without keys', async () => {
    const r = await cli(['token', 'inspect', vectors[0]!.token, ...NOW]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^version +2 \(policy\)$/m);
    expect(r.stdout).toMatch(/^response +original \(outside the hash\)$/m);
    expect(r.stdout).toMatch(/^verified +not checked/m);
  });
});

describe('multidrm token convert', () => {
  it('prints the v2 policy and a warning per rule without a counterpart', async () => {
    const r = await cli([
      'token',
      'convert',
      '--policy',
      '{"playback_policy":{"limit":true,"persistent":false,"duration":3600},"external_key":{"hls_aes":{"key":"00112233445566778899aabbccddeeff","iv":"00112233445566778899aabbccddeeff"}}}',
    ]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(
      '{"policy_version":2,"playback_policy":{"persistent":false,"license_duration":3600}}\n',
    );
    expect(r.stderr).toMatch(/^warning: playback_policy.limit: v2 has no limit member/m);
    expect(r.stderr).toMatch(/^warning: external_key.hls_aes: dropped/m);
    expect(r.stderr).not.toContain('00112233445566778899aabbccddeeff');
  });

  it('refuses a policy that is already v2, and a missing --policy', async () => {
    const already = await cli(['token', 'convert', '--policy', '{"policy_version":2}']);
    expect(already.code).toBe(1);
    expect(already.stderr).toMatch(/^error INVALID_POLICY: --policy is already a v2 policy/);
    const missing = await cli(['token', 'convert']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/^error USAGE: --policy is required/);
  });
});
