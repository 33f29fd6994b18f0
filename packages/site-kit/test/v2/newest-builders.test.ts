// Tokens as the service's newest public builders (v3.0.x, 2026) write them: empty key lists, zero
// defaults, Wiseplay, lower-case drm_type from the service's demo tokens, upper-case hex. The
// layouts are reproduced from the v2 addendum (test/support/builder-layouts.ts), not copied.
import { describe, expect, it } from 'vitest';
import {
  createTokenIssuer,
  readLicenseToken,
  verifyLicenseToken,
  type TokenPolicyV2Input,
  type VerifiedLicenseTokenV2,
} from '../../src/index.ts';
import { builderToken, type BuilderLayout } from '../../../../test/support/builder-layouts.ts';
import { failure } from '../support/failure.ts';
import { TUTO } from '../support/site.ts';

const TS = '2026-03-01T12:00:00Z';
const AT = Date.parse(TS);
const keys = { siteKey: TUTO.siteKey, accessKey: TUTO.accessKey, now: AT };
const KID = '00112233445566778899aabbccddeeff';
const KEY = '0f1e2d3c4b5a69788796a5b4c3d2e1f0';
const issuer = createTokenIssuer(TUTO);

const verifyV2 = (token: string) => {
  const verified = verifyLicenseToken(token, keys);
  if (verified.version !== 2) throw new Error('expected a v2 token');
  return verified as VerifiedLicenseTokenV2;
};

const cencPolicy = {
  policy_version: 2,
  playback_policy: { license_duration: 3600 },
  external_key: { mpeg_cenc: [{ track_type: 'ALL', key_id: KID, key: KEY }] },
} satisfies TokenPolicyV2Input;

describe('empty key lists (the PHP builder writes both lists always)', () => {
  const { token, policyText } = builderToken(
    TUTO,
    { drmType: 'Widevine', userId: 'u', cid: 'movie', timestamp: TS, policy: cencPolicy },
    'escaped',
  );

  it('the fixture has the layout the addendum describes', () => {
    expect(policyText).toContain('"hls_aes":[]');
    expect(policyText).toContain('"rental_duration":0');
    expect(Buffer.from(token, 'base64').toString()).toContain('\\/');
  });

  it('the verifier reads an empty list as absent and says so', () => {
    const verified = verifyV2(token);
    expect(verified.policy.external_key).toEqual(cencPolicy.external_key);
    expect(verified.warnings).toContain(
      'policy.external_key.hls_aes: an empty list, read as absent (one builder writes it)',
    );
  });

  it('the issuer takes empty lists and writes them as absent', () => {
    const policy = {
      ...cencPolicy,
      external_key: { mpeg_cenc: cencPolicy.external_key.mpeg_cenc, hls_aes: [] },
    };
    const verified = verifyV2(issuer.issue({ cid: 'movie', policy, timestamp: TS }));
    expect(verified.policy.external_key).toEqual(cencPolicy.external_key);
    expect(verified.warnings).toEqual([]);
  });
});

describe('rental_duration 0 with persistent false (the PHP builder default: 0 = no limit)', () => {
  const policy = {
    policy_version: 2,
    playback_policy: { persistent: false, rental_duration: 0, playback_duration: 0 },
  };

  it('the issuer accepts it and the verifier does not warn', () => {
    const verified = verifyV2(issuer.issue({ cid: 'movie', policy, timestamp: TS }));
    expect(verified.policy.playback_policy).toEqual(policy.playback_policy);
    expect(verified.warnings).toEqual([]);
  });

  it('a rental period above 0 without persistent is still refused by the issuer', () => {
    const error = failure(() =>
      issuer.issue({
        cid: 'movie',
        timestamp: TS,
        policy: { policy_version: 2, playback_policy: { persistent: false, rental_duration: 60 } },
      }),
    );
    expect(error.code).toBe('INVALID_POLICY');
    expect(error.message).toMatch(/policy\.playback_policy\.rental_duration: .*"persistent": true/);
  });
});

describe('Wiseplay, the fifth drm_type (PHP and Java builders)', () => {
  const policy = {
    policy_version: 2,
    security_policy: [{ track_type: 'ALL', wiseplay: { security_level: 2, output_control: 1 } }],
  } satisfies TokenPolicyV2Input;

  it('the issuer writes it byte-identical to the Java builder layout', () => {
    const ours = issuer.issue({
      cid: 'movie',
      drmType: 'Wiseplay',
      policy,
      timestamp: TS,
      responseFormat: 'original',
      keyRotation: false,
    });
    const java = builderToken(
      TUTO,
      {
        drmType: 'Wiseplay',
        userId: 'LICENSETOKEN',
        cid: 'movie',
        timestamp: TS,
        policy,
        responseFormat: 'original',
        keyRotation: false,
      },
      'compact',
    );
    expect(ours).toBe(java.token);
    expect(verifyV2(ours).drmType).toBe('Wiseplay');
  });

  it.each<BuilderLayout>(['compact', 'escaped'])(
    'the verifier reads a %s Wiseplay token',
    (layout) => {
      const { token } = builderToken(
        TUTO,
        { drmType: 'Wiseplay', userId: 'u', cid: 'movie', timestamp: TS, policy },
        layout,
      );
      const verified = verifyV2(token);
      expect(verified.drmType).toBe('Wiseplay');
      expect(verified.policy.security_policy).toEqual(policy.security_policy);
    },
  );
});

describe('drm_type case: readers take any case and say so, writers write the canonical spelling', () => {
  it.each([
    ['widevine', 'Widevine'],
    ['playready', 'PlayReady'],
    ['fairplay', 'FairPlay'],
    ['WISEPLAY', 'Wiseplay'],
  ])(
    'a demo token with drm_type "%s" verifies as %s (hash over the text as sent)',
    (sent, canonical) => {
      const { token } = builderToken(
        TUTO,
        { drmType: sent, userId: 'u', cid: 'movie', timestamp: TS, policy: { policy_version: 2 } },
        'spaced',
      );
      const verified = verifyV2(token);
      expect(verified.drmType).toBe(canonical);
      expect(verified.warnings).toContain(
        `drm_type: "${sent}" read as "${canonical}" (writers write that spelling; the hash covers the text as sent)`,
      );
      expect(readLicenseToken(token).drmTypeAsSent).toBe(sent);
    },
  );

  it('the issuer writes the canonical spelling whatever case it is given', () => {
    const token = issuer.issue({
      cid: 'movie',
      drmType: 'fairplay' as 'FairPlay',
      timestamp: TS,
      policy: { policy_version: 2 },
    });
    expect(Buffer.from(token, 'base64').toString()).toMatch(/^\{"drm_type":"FairPlay",/);
    expect(verifyV2(token).warnings).toEqual([]);
  });
});

describe('hex case: the issuer refuses upper case naming the member, readers accept it', () => {
  const upper = {
    policy_version: 2,
    external_key: {
      mpeg_cenc: [{ track_type: 'ALL', key_id: KID.toUpperCase(), key: KEY }],
      hls_aes: [{ track_type: 'ALL', key: KEY, iv: KEY.toUpperCase() }],
    },
  } satisfies TokenPolicyV2Input;

  it('the issuer refuses it, v2 and v1, naming each member', () => {
    const v2 = failure(() => issuer.issue({ cid: 'movie', policy: upper, timestamp: TS }));
    expect(v2.code).toBe('INVALID_POLICY');
    expect(v2.message).toBe(
      "policy.external_key.mpeg_cenc.0.key_id: must be lower-case hex (the service's token builders refuse upper case); policy.external_key.hls_aes.0.iv: must be lower-case hex (the service's token builders refuse upper case)",
    );
    const v1 = failure(() =>
      issuer.issue({
        cid: 'movie',
        policy: { external_key: { ncg: { cek: `${KEY}${KEY}`.toUpperCase() } } },
      }),
    );
    expect(v1.message).toMatch(/^policy\.external_key\.ncg\.cek: must be lower-case hex/);
  });

  it('the verifier reads a PHP-builder token with upper-case hex and warns per member', () => {
    const { token } = builderToken(
      TUTO,
      { drmType: 'PlayReady', userId: 'u', cid: 'movie', timestamp: TS, policy: upper },
      'escaped',
    );
    const verified = verifyV2(token);
    expect(verified.policy.external_key?.mpeg_cenc?.[0]?.key_id).toBe(KID.toUpperCase());
    expect(verified.warnings).toEqual(
      expect.arrayContaining([
        'policy.external_key.mpeg_cenc.0.key_id: upper-case hex, read as lower case (writers write lower case)',
        'policy.external_key.hls_aes.0.iv: upper-case hex, read as lower case (writers write lower case)',
      ]),
    );
  });

  it('hls_aes without key_id: the issuer refuses it (as the newest builders do), readers take it and warn', () => {
    const policy = {
      policy_version: 2,
      external_key: { hls_aes: [{ track_type: 'ALL', key: KEY, iv: KEY }] },
    } satisfies TokenPolicyV2Input;
    const refused = failure(() => issuer.issue({ cid: 'movie', policy, timestamp: TS }));
    expect([refused.code, refused.message]).toEqual([
      'INVALID_POLICY',
      "policy.external_key.hls_aes.0.key_id: is required (the service's newest token builders refuse an hls_aes key without it)",
    ]);
    const { token } = builderToken(
      TUTO,
      { drmType: 'Widevine', userId: 'u', cid: 'movie', timestamp: TS, policy },
      'compact',
    );
    const verified = verifyV2(token);
    expect(verified.policy.external_key?.hls_aes).toEqual(policy.external_key.hls_aes);
    expect(verified.warnings).toContain(
      "policy.external_key.hls_aes.0.key_id: absent, read without it (the service's newest builders require it)",
    );
    const withKeyId = { hls_aes: [{ track_type: 'ALL' as const, key_id: KID, key: KEY, iv: KEY }] };
    const issued = issuer.issue({
      cid: 'movie',
      policy: { policy_version: 2, external_key: withKeyId },
      timestamp: TS,
    });
    expect(verifyV2(issued).policy.external_key).toEqual(withKeyId);
  });
});
