import { describe, expect, it } from 'vitest';
import {
  createTokenIssuer,
  encrypt,
  verifyLicenseToken,
  type TokenPolicyV2Input,
} from '../../src/index.ts';
import { tokenHash } from '../../src/token/hash.ts';
import { failure } from '../support/failure.ts';
import { TUTO } from '../support/site.ts';

const issuer = createTokenIssuer(TUTO);
const keys = { siteKey: TUTO.siteKey, accessKey: TUTO.accessKey };
const TS = '2026-03-01T12:00:00Z';
const AT = Date.parse(TS);
const KEY = '00112233445566778899aabbccddeeff';

/** A correctly hashed v2 token around any policy text, to test what a reader makes of it. */
function v2Token(policy: unknown, extra: Record<string, unknown> = {}): string {
  const field = encrypt(JSON.stringify(policy), TUTO.siteKey);
  const hashed = {
    drm_type: 'Widevine',
    site_id: 'TUTO',
    user_id: 'u',
    cid: 'c',
    token: field,
    timestamp: TS,
  };
  const hash = tokenHash(TUTO.accessKey, hashed, 'raw-digest');
  const { token: _field, ...fields } = hashed;
  const json = {
    ...fields,
    policy: field,
    response_format: 'original',
    key_rotation: false,
    ...extra,
    hash,
  };
  return Buffer.from(JSON.stringify(json)).toString('base64');
}

// Each row: a member set to a wrong type or an out-of-range value, the path the error must name, and
// words of the rule (the allowed values or the type) it must say.
const wrong: [string, TokenPolicyV2Input | Record<string, unknown>, string, RegExp][] = [
  ['policy_version 1', { policy_version: 1 }, 'policy.policy_version', /must be 2, got 1/],
  [
    'persistent as text',
    { policy_version: 2, playback_policy: { persistent: 'yes' } },
    'policy.playback_policy.persistent',
    /true or false/,
  ],
  [
    'negative license_duration',
    { policy_version: 2, playback_policy: { license_duration: -1 } },
    'policy.playback_policy.license_duration',
    /must not be negative/,
  ],
  [
    'fractional license_duration',
    { policy_version: 2, playback_policy: { license_duration: 1.5 } },
    'policy.playback_policy.license_duration',
    /whole number/,
  ],
  [
    'license_duration as text',
    { policy_version: 2, playback_policy: { license_duration: '60' } },
    'policy.playback_policy.license_duration',
    /a number of seconds, got the string "60"/,
  ],
  [
    'expire_date in another format',
    { policy_version: 2, playback_policy: { expire_date: '2026-03-01 12:00' } },
    'policy.playback_policy.expire_date',
    /yyyy-mm-ddThh:mm:ssZ/,
  ],
  [
    'allowed_track_types unknown',
    { policy_version: 2, playback_policy: { allowed_track_types: 'HD_ONLY' } },
    'policy.playback_policy.allowed_track_types',
    /"ALL", "SD_ONLY", "SD_HD", "SD_UHD1", "SD_UHD2"/,
  ],
  [
    'negative rental_duration',
    { policy_version: 2, playback_policy: { persistent: true, rental_duration: -5 } },
    'policy.playback_policy.rental_duration',
    /must not be negative/,
  ],
  [
    'negative playback_duration',
    { policy_version: 2, playback_policy: { playback_duration: -5 } },
    'policy.playback_policy.playback_duration',
    /must not be negative/,
  ],
  [
    'negative max_stream_per_user',
    { policy_version: 2, playback_policy: { max_stream_per_user: -1 } },
    'policy.playback_policy.max_stream_per_user',
    /must not be negative \(0 is no limit\)/,
  ],
  [
    'max_stream_per_user as boolean',
    { policy_version: 2, playback_policy: { max_stream_per_user: true } },
    'policy.playback_policy.max_stream_per_user',
    /whole number of streams, got boolean true/,
  ],
  [
    'renewal_duration as a word',
    { policy_version: 2, playback_policy: { renewal_duration: 'soon' } },
    'policy.playback_policy.renewal_duration',
    /string of digits/,
  ],
  [
    'security_policy as one object (v1 shape)',
    { policy_version: 2, security_policy: { track_type: 'ALL' } },
    'policy.security_policy',
    /array of per-track entries/,
  ],
  [
    'track_type unknown',
    { policy_version: 2, security_policy: [{ track_type: 'VIDEO' }] },
    'policy.security_policy.0.track_type',
    /"ALL", "ALL_VIDEO", "AUDIO", "SD", "HD", "UHD1", "UHD2"/,
  ],
  [
    'widevine security_level 0',
    { policy_version: 2, security_policy: [{ widevine: { security_level: 0 } }] },
    'policy.security_policy.0.widevine.security_level',
    /1, 2, 3, 4, 5/,
  ],
  [
    'widevine security_level 6',
    { policy_version: 2, security_policy: [{ widevine: { security_level: 6 } }] },
    'policy.security_policy.0.widevine.security_level',
    /1, 2, 3, 4, 5/,
  ],
  [
    'widevine HDCP version misspelt',
    { policy_version: 2, security_policy: [{ widevine: { required_hdcp_version: 'HDCP_V3' } }] },
    'policy.security_policy.0.widevine.required_hdcp_version',
    /"HDCP_NONE", "HDCP_V1", "HDCP_V2", "HDCP_V2_1", "HDCP_V2_2", "HDCP_V2_3", "HDCP_NO_DIGITAL_OUTPUT"/,
  ],
  [
    'widevine CGMS flag unknown',
    { policy_version: 2, security_policy: [{ widevine: { required_cgms_flags: 'COPY_TWICE' } }] },
    'policy.security_policy.0.widevine.required_cgms_flags',
    /"CGMS_NONE", "COPY_FREE", "COPY_ONCE", "COPY_NEVER"/,
  ],
  [
    'widevine SRM rule unknown',
    { policy_version: 2, security_policy: [{ widevine: { hdcp_srm_rule: 'NEWEST_SRM' } }] },
    'policy.security_policy.0.widevine.hdcp_srm_rule',
    /"HDCP_SRM_RULE_NONE", "CURRENT_SRM"/,
  ],
  [
    'widevine disable_analog_output as 1',
    { policy_version: 2, security_policy: [{ widevine: { disable_analog_output: 1 } }] },
    'policy.security_policy.0.widevine.disable_analog_output',
    /true or false/,
  ],
  [
    'widevine allow_test_device as text',
    { policy_version: 2, security_policy: [{ widevine: { allow_test_device: 'true' } }] },
    'policy.security_policy.0.widevine.allow_test_device',
    /true or false/,
  ],
  [
    'playready security_level 2500',
    { policy_version: 2, security_policy: [{ playready: { security_level: 2500 } }] },
    'policy.security_policy.0.playready.security_level',
    /150, 2000, 3000/,
  ],
  [
    'playready digital video level 260',
    {
      policy_version: 2,
      security_policy: [{ playready: { digital_video_protection_level: 260 } }],
    },
    'policy.security_policy.0.playready.digital_video_protection_level',
    /100, 250, 270, 300, 301/,
  ],
  [
    'playready analog video level 250',
    { policy_version: 2, security_policy: [{ playready: { analog_video_protection_level: 250 } }] },
    'policy.security_policy.0.playready.analog_video_protection_level',
    /100, 150, 200, 201/,
  ],
  [
    'playready digital audio level 270',
    {
      policy_version: 2,
      security_policy: [{ playready: { digital_audio_protection_level: 270 } }],
    },
    'policy.security_policy.0.playready.digital_audio_protection_level',
    /100, 250, 300, 301/,
  ],
  [
    'playready require_hdcp_type_1 as 1',
    { policy_version: 2, security_policy: [{ playready: { require_hdcp_type_1: 1 } }] },
    'policy.security_policy.0.playready.require_hdcp_type_1',
    /true or false/,
  ],
  [
    'fairplay hdcp_enforcement 2',
    { policy_version: 2, security_policy: [{ fairplay: { hdcp_enforcement: 2 } }] },
    'policy.security_policy.0.fairplay.hdcp_enforcement',
    /-1, 0, 1/,
  ],
  [
    'fairplay allow_airplay as text',
    { policy_version: 2, security_policy: [{ fairplay: { allow_airplay: 'no' } }] },
    'policy.security_policy.0.fairplay.allow_airplay',
    /true or false/,
  ],
  [
    'ncg control_hdcp 3',
    { policy_version: 2, security_policy: [{ ncg: { control_hdcp: 3 } }] },
    'policy.security_policy.0.ncg.control_hdcp',
    /0, 1, 2/,
  ],
  [
    'wiseplay security_level 4',
    { policy_version: 2, security_policy: [{ wiseplay: { security_level: 4 } }] },
    'policy.security_policy.0.wiseplay.security_level',
    /1, 2, 3/,
  ],
  [
    'wiseplay output_control 4',
    { policy_version: 2, security_policy: [{ wiseplay: { output_control: 4 } }] },
    'policy.security_policy.0.wiseplay.output_control',
    /0, 1, 2, 3/,
  ],
  [
    'mpeg_cenc as one object (v1 shape)',
    { policy_version: 2, external_key: { mpeg_cenc: { key_id: KEY, key: KEY } } },
    'policy.external_key.mpeg_cenc',
    /an array of key entries/,
  ],
  [
    'only empty key lists (read as absent, which leaves external_key empty)',
    { policy_version: 2, external_key: { mpeg_cenc: [], hls_aes: [] } },
    'policy.external_key',
    /must hold at least one of mpeg_cenc, hls_aes, ncg/,
  ],
  [
    'mpeg_cenc without key',
    { policy_version: 2, external_key: { mpeg_cenc: [{ key_id: KEY }] } },
    'policy.external_key.mpeg_cenc.0.key',
    /is required/,
  ],
  [
    'mpeg_cenc key of 15 bytes',
    { policy_version: 2, external_key: { mpeg_cenc: [{ key_id: KEY, key: KEY.slice(2) }] } },
    'policy.external_key.mpeg_cenc.0.key',
    /exactly 32 hex characters/,
  ],
  [
    'mpeg_cenc iv not hex',
    {
      policy_version: 2,
      external_key: { mpeg_cenc: [{ key_id: KEY, key: KEY, iv: 'z'.repeat(32) }] },
    },
    'policy.external_key.mpeg_cenc.0.iv',
    /exactly 32 hex characters/,
  ],
  [
    'hls_aes without iv',
    { policy_version: 2, external_key: { hls_aes: [{ key: KEY, key_id: KEY }] } },
    'policy.external_key.hls_aes.0.iv',
    /is required/,
  ],
  [
    'ncg cek of 16 bytes',
    { policy_version: 2, external_key: { ncg: { cek: KEY } } },
    'policy.external_key.ncg.cek',
    /exactly 64 hex characters/,
  ],
  [
    'ncg as an array',
    { policy_version: 2, external_key: { ncg: [{ cek: KEY + KEY }] } },
    'policy.external_key.ncg',
    /an object, got an array/,
  ],
  [
    'external_key empty',
    { policy_version: 2, external_key: {} },
    'policy.external_key',
    /at least one of mpeg_cenc, hls_aes, ncg/,
  ],
  // The booleans of the per-DRM objects take true or false only, never 1 or "true".
  ...(
    [
      ['widevine', 'override_device_revocation', 'yes', /got the string "yes"/],
      ['widevine', 'enable_license_cipher', 1, /got number 1/],
      ['playready', 'enable_license_cipher', 'true', /got the string "true"/],
      ['fairplay', 'allow_av_adapter', 0, /got number 0/],
      ['ncg', 'allow_mobile_abnormal_device', 'false', /got the string "false"/],
      ['ncg', 'allow_external_display', null, /got null/],
    ] as const
  ).map(([drm, member, value, got]): [string, Record<string, unknown>, string, RegExp] => [
    `${drm}.${member} ${JSON.stringify(value)}`,
    { policy_version: 2, security_policy: [{ track_type: 'ALL', [drm]: { [member]: value } }] },
    `policy.security_policy.0.${drm}.${member}`,
    new RegExp(`must be true or false, ${got.source}`),
  ]),
];

describe('v2 policy rules', () => {
  for (const [name, policy, path, rule] of wrong) {
    it(`the issuer refuses ${name}, naming ${path}`, () => {
      const error = failure(() => issuer.issue({ cid: 'c', policy: policy as TokenPolicyV2Input }));
      expect(error.code).toBe('INVALID_POLICY');
      expect(error.message).toContain(`${path}: `);
      expect(error.message).toMatch(rule);
    });

    it(`the verifier refuses a token whose policy has ${name}`, () => {
      const error = failure(() => verifyLicenseToken(v2Token(policy), { ...keys, now: AT }));
      expect(error.code).toBe('INVALID_POLICY');
      expect(error.message).toContain(`${path}: `);
      expect(error.message).toMatch(rule);
    });
  }

  it('the issuer refuses an unknown member (a typo must not vanish) and names it', () => {
    const error = failure(() =>
      issuer.issue({
        cid: 'c',
        policy: { policy_version: 2, playback_policy: { licence_duration: 60 } } as never,
      }),
    );
    expect(error.code).toBe('INVALID_POLICY');
    expect(error.message).toContain('policy.playback_policy: unknown member "licence_duration"');
  });

  it('the issuer refuses rental_duration without persistent true', () => {
    const error = failure(() =>
      issuer.issue({
        cid: 'c',
        policy: { policy_version: 2, playback_policy: { rental_duration: 60 } },
      }),
    );
    expect(error.message).toMatch(
      /policy.playback_policy.rental_duration: .*needs "persistent": true/,
    );
  });

  it('the issuer refuses responseFormat and keyRotation for a v1 policy', () => {
    const error = failure(() => issuer.issue({ cid: 'c', responseFormat: 'json' }));
    expect(error.code).toBe('INVALID_INPUT');
    expect(error.message).toMatch(/exist only in v2 tokens/);
    expect(
      failure(() =>
        issuer.issue({ cid: 'c', policy: { policy_version: 2 }, responseFormat: 'xml' as never }),
      ).message,
    ).toMatch(/responseFormat: must be one of "original", "json", "custom"/);
  });

  it('a reader warns about unknown members with their path and keeps the rest', () => {
    const token = v2Token(
      {
        policy_version: 2,
        playback_policy: { persistent: false, license_duration: 60, extra: 1 },
        vendor_note: 'x',
      },
      { builder: 'sample-7' },
    );
    const result = verifyLicenseToken(token, { ...keys, now: AT });
    expect(result.policy).toEqual({
      policy_version: 2,
      playback_policy: { persistent: false, license_duration: 60 },
    });
    expect(result.warnings.sort()).toEqual([
      'builder: unknown member, ignored (not in the token format; some builder added it)',
      'policy.playback_policy.extra: unknown member, ignored (not in the token format; some builder added it)',
      'policy.vendor_note: unknown member, ignored (not in the token format; some builder added it)',
    ]);
  });

  it('a reader refuses a wrong value even when unknown members are there too', () => {
    const token = v2Token({ policy_version: 2, playback_policy: { persistent: 1, extra: 1 } });
    const error = failure(() => verifyLicenseToken(token, { ...keys, now: AT }));
    expect(error.code).toBe('INVALID_POLICY');
    expect(error.message).toMatch(/policy.playback_policy.persistent: must be true or false/);
    expect(error.message).not.toMatch(/extra/);
  });

  it('the aliases external_policy, require_hdcp_type1 and "iv": null are read, and never written', () => {
    const aliased = {
      policy_version: 2,
      security_policy: [
        { track_type: 'ALL', playready: { security_level: 2000, require_hdcp_type1: true } },
      ],
      external_policy: { mpeg_cenc: [{ track_type: 'ALL', key_id: KEY, key: KEY, iv: null }] },
    };
    const canonical = {
      policy_version: 2,
      security_policy: [
        { track_type: 'ALL', playready: { security_level: 2000, require_hdcp_type_1: true } },
      ],
      external_key: { mpeg_cenc: [{ track_type: 'ALL', key_id: KEY, key: KEY }] },
    };
    const read = verifyLicenseToken(v2Token(aliased), { ...keys, now: AT });
    expect(read.policy).toEqual(canonical);
    expect(read.warnings.join('\n')).toMatch(/external_policy: read as external_key/);
    expect(read.warnings.join('\n')).toMatch(/require_hdcp_type1: read as require_hdcp_type_1/);

    const written = issuer.issue({ cid: 'c', policy: aliased as never, timestamp: TS });
    expect(written).toBe(
      issuer.issue({ cid: 'c', policy: canonical as TokenPolicyV2Input, timestamp: TS }),
    );
  });

  it('track_type defaults to ALL and renewal_duration "60" is written as 60', () => {
    const token = issuer.issue({
      cid: 'c',
      timestamp: TS,
      policy: {
        policy_version: 2,
        playback_policy: { max_stream_per_user: 2, renewal_duration: '60' },
        security_policy: [{ fairplay: { hdcp_enforcement: -1 } }],
      },
    });
    const result = verifyLicenseToken(token, { ...keys, now: AT });
    expect(JSON.stringify(result.policy)).toBe(
      '{"policy_version":2,"playback_policy":{"max_stream_per_user":2,"renewal_duration":60},"security_policy":[{"track_type":"ALL","fairplay":{"hdcp_enforcement":-1}}]}',
    );
  });

  it('max_stream_per_user 0 (no limit, as the emulator counts it) is issued and read back', () => {
    const policy = { policy_version: 2, playback_policy: { max_stream_per_user: 0 } } as const;
    const issued = issuer.issue({ cid: 'c', timestamp: TS, policy });
    expect(verifyLicenseToken(issued, { ...keys, now: AT }).policy).toEqual(policy);
    // A token built elsewhere, with the member among others the fast reader does not take.
    const built = { ...policy, playback_policy: { max_stream_per_user: 0, persistent: false } };
    expect(verifyLicenseToken(v2Token(built), { ...keys, now: AT }).policy).toEqual(built);
  });

  it('a reader warns that license_duration and expire_date together have no documented winner', () => {
    const token = v2Token({
      policy_version: 2,
      playback_policy: { license_duration: 60, expire_date: TS },
    });
    const result = verifyLicenseToken(token, { ...keys, now: AT });
    expect(result.warnings).toEqual([
      'playback_policy: license_duration and expire_date are both set; the service does not document which wins (v1: duration)',
    ]);
  });
});
