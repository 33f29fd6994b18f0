// The CLI with the newest builders' drm_type values: Wiseplay, and any case in, canonical out.
import { describe, expect, it } from 'vitest';
import { builderToken } from '../../../../test/support/builder-layouts.ts';
import { cli } from '../support/cli.ts';
import { TUTO } from '../support/site.ts';

const SITE = ['--site-id', TUTO.siteId, '--site-key', TUTO.siteKey, '--access-key', TUTO.accessKey];
const KEYS = ['--site-key', TUTO.siteKey, '--access-key', TUTO.accessKey];
const TS = '2026-03-01T12:00:00Z';
const NOW = ['--now', TS];

describe('multidrm token with Wiseplay and drm_type in any case', () => {
  it('create --drm-type wiseplay writes "Wiseplay", and inspect verifies it', async () => {
    const created = await cli([
      'token',
      'create',
      ...SITE,
      '--cid',
      'movie',
      '--drm-type',
      'wiseplay',
      '--timestamp',
      TS,
      '--policy',
      '{"policy_version":2,"security_policy":[{"wiseplay":{"security_level":3}}]}',
    ]);
    expect([created.code, created.stderr]).toEqual([0, '']);
    const token = created.stdout.trim();
    expect(Buffer.from(token, 'base64').toString()).toMatch(/^\{"drm_type":"Wiseplay",/);
    const inspected = await cli(['token', 'inspect', token, ...KEYS, ...NOW, '--json']);
    expect(JSON.parse(inspected.stdout)).toMatchObject({
      verified: true,
      fields: { drm_type: 'Wiseplay' },
      warnings: [],
    });
  });

  it('inspect verifies a demo token with drm_type "fairplay" and warns about the case', async () => {
    const { token } = builderToken(
      TUTO,
      {
        drmType: 'fairplay',
        userId: 'u',
        cid: 'movie',
        timestamp: TS,
        policy: { policy_version: 2 },
      },
      'spaced',
    );
    const inspected = await cli(['token', 'inspect', token, ...KEYS, ...NOW, '--json']);
    expect(inspected.code).toBe(0);
    expect(JSON.parse(inspected.stdout)).toMatchObject({
      verified: true,
      fields: { drm_type: 'FairPlay' },
      warnings: [
        'drm_type: "fairplay" read as "FairPlay" (writers write that spelling; the hash covers the text as sent)',
      ],
    });
  });

  it('create refuses an unknown drm_type with the list, exit 1', async () => {
    const r = await cli(['token', 'create', ...SITE, '--cid', 'movie', '--drm-type', 'Marlin']);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(
      /drmType: must be one of "NCG", "Widevine", "PlayReady", "FairPlay", "Wiseplay" \(any case\), got "Marlin"/,
    );
  });
});
