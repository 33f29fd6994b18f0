import { describe, expect, it } from 'vitest';
import type { Grant } from '../src/authorization.ts';
import { buildClearKeyLicense } from '../src/clearkey-license.ts';
import { EmulatorError } from '../src/errors.ts';
import { selectKeys } from '../src/key-selection.ts';
import { parseLicenseRequest } from '../src/license-request.ts';
import { checkPolicyWindow, effectivePolicy } from '../src/policy.ts';
import { b64url, KEY, KID, OTHER_KID } from './helpers.ts';

const code = (run: () => unknown) => {
  try {
    run();
  } catch (error) {
    return error instanceof EmulatorError ? error.code : 'not an EmulatorError';
  }
  return 'no error';
};

describe('parseLicenseRequest', () => {
  it('reads base64url kids as hex, without repeats, and defaults type to temporary', () => {
    expect(
      parseLicenseRequest(JSON.stringify({ kids: [b64url(KID), b64url(OTHER_KID), b64url(KID)] })),
    ).toEqual({
      kids: [KID, OTHER_KID],
      type: 'temporary',
    });
  });

  it('reads every key ID right however many come and come again, and still refuses a bad one', () => {
    // More key IDs than the parser keeps, each read twice, in two passes.
    const kids = Array.from({ length: 1500 }, (_, i) => i.toString(16).padStart(32, '0'));
    for (const kid of [...kids, ...kids.toReversed()]) {
      expect(parseLicenseRequest(JSON.stringify({ kids: [b64url(kid)] })).kids).toEqual([kid]);
    }
    // One bit past the 16 bytes: the same bytes, written otherwise, so not canonical.
    const kid = b64url(KID);
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const last = alphabet.indexOf(kid.slice(-1));
    const offCanonical = kid.slice(0, -1) + alphabet.charAt(last | 1);
    expect(() => parseLicenseRequest(JSON.stringify({ kids: [offCanonical] }))).toThrow(
      /kids\.0: must encode exactly 16 bytes/,
    );
  });

  it.each([
    ['', /empty/],
    ['{', /not JSON/],
    ['[]', /not an object/],
    ['{"kids":"x"}', /kids: must be a non-empty array/],
    [
      `{"kids":["${Buffer.from(KID, 'hex').toString('base64')}"]}`,
      /kids\.0: must be a base64url string without padding/,
    ],
    ['{"kids":["AAAA"]}', /kids\.0: must encode exactly 16 bytes, got 3/],
    [
      `{"kids":["${b64url(KID)}"],"type":"forever"}`,
      /type: must be "temporary" or "persistent-license"/,
    ],
  ])('refuses %j as BAD_LICENSE_REQUEST', (body, says) => {
    expect(code(() => parseLicenseRequest(body))).toBe('BAD_LICENSE_REQUEST');
    expect(() => parseLicenseRequest(body)).toThrow(says);
  });
});

describe('effectivePolicy', () => {
  const grant = (playback: Grant['playback']): Grant => ({ source: 'token-v1', playback });

  it('defaults to unlimited, non-persistent', () => {
    expect(effectivePolicy(grant({}))).toEqual({ limit: false, persistent: false });
  });

  it('keeps duration and drops expire_date when both are set and limit is true', () => {
    expect(
      effectivePolicy(grant({ limit: true, duration: 10, expire_date: '2030-01-01T00:00:00Z' })),
    ).toEqual({
      limit: true,
      persistent: false,
      duration: 10,
      ignored: ['expire_date: duration is set, and duration wins'],
    });
  });

  it('drops duration, expire_date and start_date when limit is false', () => {
    const policy = effectivePolicy(
      grant({
        duration: 5,
        expire_date: '2000-01-01T00:00:00Z',
        start_date: '2000-01-01T00:00:00Z',
      }),
    );
    expect(policy.duration).toBeUndefined();
    expect(policy.expire_date).toBeUndefined();
    expect(policy.ignored).toHaveLength(3);
  });

  it('keeps every v2 date and duration, with no limit member', () => {
    const policy = effectivePolicy({
      source: 'token-v2',
      playback: {
        persistent: true,
        license_duration: 60,
        expire_date: '2030-01-01T00:00:00Z',
        rental_duration: 600,
        playback_duration: 300,
        max_stream_per_user: 2,
        renewal_duration: 30,
      },
    });
    expect(policy).toEqual({
      persistent: true,
      license_duration: 60,
      expire_date: '2030-01-01T00:00:00Z',
      rental_duration: 600,
      playback_duration: 300,
      max_stream_per_user: 2,
      renewal_duration: 30,
    });
  });

  it('says what ClearKey cannot enforce: security levels, HDCP, track types, other key systems', () => {
    const policy = effectivePolicy({
      source: 'token-v2',
      playback: { allowed_track_types: 'SD_ONLY' },
      security: [
        { track_type: 'HD', widevine: { security_level: 5, required_hdcp_version: 'HDCP_V2' } },
      ],
      unusableKeys: ['external_key.hls_aes'],
      keyRotation: true,
    });
    expect(policy.not_enforced).toEqual([
      expect.stringMatching(
        /^security_policy\[0\] \(HD\)\.widevine: security_level 5, required_hdcp_version HDCP_V2: ClearKey has no security levels/,
      ),
      expect.stringMatching(/^playback_policy\.allowed_track_types SD_ONLY: /),
      'external_key.hls_aes: not used, ClearKey takes only mpeg_cenc keys',
      expect.stringMatching(/^key_rotation true: /),
    ]);
  });

  it('reports v1 security_policy and XML PC as not enforced, and nothing when none is asked for', () => {
    expect(
      effectivePolicy({
        source: 'token-v1',
        playback: {},
        security: { hardware_drm: true, output_protect: { control_hdcp: 2 } },
      }).not_enforced,
    ).toEqual([
      expect.stringMatching(
        /^security_policy: hardware_drm true, output_protect \{control_hdcp 2\}: ClearKey has no/,
      ),
    ]);
    expect(
      effectivePolicy({
        source: 'gateway-xml',
        playback: {},
        outputControl: { HDCP: 1, 'CGMS-A': 0, APS: 0 },
      }).not_enforced,
    ).toEqual([expect.stringMatching(/^PC: HDCP 1, CGMS-A 0, APS 0: /)]);
    expect(effectivePolicy(grant({})).not_enforced).toBeUndefined();
  });
});

describe('checkPolicyWindow', () => {
  const now = Date.UTC(2030, 0, 1, 12, 0, 0);
  it('refuses an expire_date in the past by the seconds it is late', () => {
    const policy = { limit: true, persistent: false, expire_date: '2030-01-01T11:59:00Z' };
    expect(code(() => checkPolicyWindow(policy, now))).toBe('LICENSE_EXPIRED');
    expect(() => checkPolicyWindow(policy, now)).toThrow(/ended 60 s ago/);
  });
  it('accepts the very second of expire_date and a start_date now', () => {
    expect(
      code(() =>
        checkPolicyWindow(
          {
            limit: true,
            persistent: false,
            expire_date: '2030-01-01T12:00:00Z',
            start_date: '2030-01-01T12:00:00Z',
          },
          now,
        ),
      ),
    ).toBe('no error');
  });
  it('refuses a start_date in the future', () => {
    expect(
      code(() =>
        checkPolicyWindow(
          { limit: true, persistent: false, start_date: '2030-01-01T12:00:30Z' },
          now,
        ),
      ),
    ).toBe('LICENSE_NOT_YET_VALID');
  });
});

describe('selectKeys', () => {
  const configured = { movie: [{ kid: KID, key: KEY }] };
  it('prefers the external key over the configured one', () => {
    expect(selectKeys([OTHER_KID], 'movie', [{ kid: OTHER_KID, key: KID }], configured)).toEqual([
      { kid: OTHER_KID, key: KID },
    ]);
  });
  it('gives an external key without key ID to every requested kid', () => {
    expect(selectKeys([KID, OTHER_KID], 'x', [{ key: KEY }], {})).toEqual([
      { kid: KID, key: KEY },
      { kid: OTHER_KID, key: KEY },
    ]);
  });
  it('takes several external keys (v2: one per track) and issues those requested', () => {
    const keys = [
      { kid: KID, key: KEY, trackType: 'AUDIO' },
      { kid: OTHER_KID, key: KID, trackType: 'ALL_VIDEO' },
    ];
    expect(selectKeys([OTHER_KID, KID], 'x', keys, {})).toEqual([
      { kid: OTHER_KID, key: KID },
      { kid: KID, key: KEY },
    ]);
  });
  it('tells a key ID of another configured cid (CID_MISMATCH) from an unknown one', () => {
    const two = { ...configured, trailer: [{ kid: OTHER_KID, key: KEY }] };
    expect(code(() => selectKeys([OTHER_KID], 'movie', undefined, two))).toBe('CID_MISMATCH');
    expect(code(() => selectKeys([KEY], 'movie', undefined, two))).toBe('KID_NOT_LICENSED');
  });
  it('does not read inherited properties as cids', () => {
    expect(code(() => selectKeys([KID], 'constructor', undefined, configured))).toBe(
      'NO_KEY_FOR_CID',
    );
  });
  it('refuses when one requested kid is not covered', () => {
    expect(code(() => selectKeys([KID, OTHER_KID], 'movie', undefined, configured))).toBe(
      'KID_NOT_LICENSED',
    );
    expect(
      code(() => selectKeys([KID], 'elsewhere', [{ kid: OTHER_KID, key: KEY }], configured)),
    ).toBe('CID_MISMATCH');
    expect(code(() => selectKeys([KID], 'movie', [{ kid: OTHER_KID, key: KEY }], configured))).toBe(
      'KID_NOT_LICENSED',
    );
  });
});

describe('buildClearKeyLicense', () => {
  it('writes kid and k as unpadded base64url and the type from persistent', () => {
    const license = buildClearKeyLicense([{ kid: KID, key: KEY }], true);
    expect(license).toEqual({
      keys: [{ kty: 'oct', kid: b64url(KID), k: b64url(KEY) }],
      type: 'persistent-license',
    });
    expect(JSON.stringify(license)).not.toMatch(/[=+/]/);
  });

  it('writes the key of the same configured object again after its hex changed in place', () => {
    const configured = { kid: KID, key: KEY };
    expect(buildClearKeyLicense([configured], false).keys[0]?.k).toBe(b64url(KEY));
    expect(buildClearKeyLicense([configured], false).keys[0]?.k).toBe(b64url(KEY));
    const other = 'ab'.repeat(16);
    configured.key = other;
    expect(buildClearKeyLicense([configured], false).keys[0]).toEqual({
      kty: 'oct',
      kid: b64url(KID),
      k: b64url(other),
    });
    configured.kid = other;
    expect(buildClearKeyLicense([configured], false).keys[0]?.kid).toBe(b64url(other));
  });
});
