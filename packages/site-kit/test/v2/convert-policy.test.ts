import { describe, expect, it } from 'vitest';
import { convertPolicyToV2, createTokenIssuer, verifyLicenseToken } from '../../src/index.ts';
import { failure } from '../support/failure.ts';
import { TUTO } from '../support/site.ts';

const KEY = '00112233445566778899aabbccddeeff';

describe('convertPolicyToV2', () => {
  it('a limited streaming policy becomes license_duration, with a word on limit', () => {
    const { policy, warnings } = convertPolicyToV2({
      playback_policy: { limit: true, persistent: false, duration: 3600 },
    });
    expect(JSON.stringify(policy)).toBe(
      '{"policy_version":2,"playback_policy":{"persistent":false,"license_duration":3600}}',
    );
    expect(warnings).toEqual([
      expect.stringMatching(/^playback_policy.limit: v2 has no limit member/),
    ]);
  });

  it('limit false drops the duration and the date it would ignore, and says so', () => {
    const { policy, warnings } = convertPolicyToV2({
      playback_policy: { limit: false, duration: 60, expire_date: '2026-01-01T00:00:00Z' },
    });
    expect(policy).toEqual({ policy_version: 2, playback_policy: {} });
    expect(warnings.join('\n')).toMatch(/duration: dropped, v1 ignores it without "limit": true/);
    expect(warnings.join('\n')).toMatch(
      /expire_date: dropped, v1 ignores it without "limit": true/,
    );
  });

  it('duration wins over expire_date as in v1', () => {
    const { policy, warnings } = convertPolicyToV2({
      playback_policy: { limit: true, duration: 60, expire_date: '2026-01-01T00:00:00Z' },
    });
    expect(policy.playback_policy).toEqual({ license_duration: 60 });
    expect(warnings.join('\n')).toMatch(/expire_date: dropped, v1 lets duration win/);
  });

  it('security options move into the per-DRM objects of one ALL entry', () => {
    const { policy, warnings } = convertPolicyToV2({
      security_policy: {
        hardware_drm: true,
        playready_security_level: 2000,
        allow_mobile_abnormal_device: false,
        output_protect: { allow_external_display: true, control_hdcp: 2 },
      },
    });
    expect(policy.security_policy).toEqual([
      {
        track_type: 'ALL',
        widevine: { security_level: 5 },
        playready: { security_level: 2000 },
        ncg: { allow_mobile_abnormal_device: false, allow_external_display: true, control_hdcp: 2 },
      },
    ]);
    expect(warnings.join('\n')).toMatch(/hardware_drm: true became widevine.security_level 5/);
    expect(warnings.join('\n')).toMatch(/control_hdcp: moved to ncg.control_hdcp only/);
  });

  it('external keys become arrays; an hls_aes key without key_id cannot, and says what to add', () => {
    const { policy, warnings } = convertPolicyToV2({
      external_key: {
        mpeg_cenc: { key_id: KEY, key: KEY, iv: KEY },
        hls_aes: { key: KEY, iv: KEY },
        ncg: { cek: KEY + KEY },
      },
    });
    expect(policy.external_key).toEqual({
      mpeg_cenc: [{ track_type: 'ALL', key_id: KEY, key: KEY, iv: KEY }],
      ncg: { cek: KEY + KEY },
    });
    expect(warnings.join('\n')).toMatch(/hls_aes: dropped, a v2 entry needs key_id, key and iv/);
  });

  it('what it makes is a policy the issuer takes and the verifier reads back unchanged', () => {
    const { policy } = convertPolicyToV2({
      playback_policy: { limit: true, persistent: true, duration: 100 },
      security_policy: { playready_security_level: 150 },
    });
    const token = createTokenIssuer(TUTO).issue({
      cid: 'c',
      policy,
      timestamp: '2026-03-01T12:00:00Z',
    });
    const read = verifyLicenseToken(token, {
      siteKey: TUTO.siteKey,
      accessKey: TUTO.accessKey,
      now: Date.parse('2026-03-01T12:00:00Z'),
    });
    expect(read.policy).toEqual(policy);
  });

  it('refuses input that is not a v1 policy, naming the field', () => {
    const error = failure(() => convertPolicyToV2({ playback_policy: { duration: -1 } } as never));
    expect(error.code).toBe('INVALID_POLICY');
    expect(error.message).toMatch(/policy.playback_policy.duration: must not be negative/);
  });
});
