import { describe, expect, it } from 'vitest';
import {
  createTokenIssuer,
  decrypt,
  verifyLicenseToken,
  type TokenPolicyV2Input,
} from '../../src/index.ts';
import { TUTO } from '../support/site.ts';

// Rules of the v2 addendum an outside audit found untested: the order the issuer writes whatever
// the order it is given, several key lists at once, and token JSON that escapes non-ASCII text as
// \uXXXX (as PHP's json_encode does by default).

const issuer = createTokenIssuer(TUTO);
const TS = '2026-03-01T12:00:00Z';
const keys = { siteKey: TUTO.siteKey, accessKey: TUTO.accessKey, now: Date.parse(TS) };
const H = (c: string) => c.repeat(32);

/** The policy text a token carries, decrypted. */
const policyText = (token: string): string => {
  const json = JSON.parse(Buffer.from(token, 'base64').toString()) as { policy: string };
  return decrypt(json.policy, TUTO.siteKey);
};

describe('the order the issuer writes', () => {
  it('per-DRM objects and their members in the tables order, fairplay, ncg and wiseplay included, whatever the input order', () => {
    const shuffled = {
      policy_version: 2,
      security_policy: [
        {
          wiseplay: { output_control: 1, security_level: 2 },
          ncg: {
            control_hdcp: 1,
            allow_external_display: true,
            allow_mobile_abnormal_device: false,
          },
          fairplay: { allow_av_adapter: true, allow_airplay: false, hdcp_enforcement: 1 },
          playready: { enable_license_cipher: true, security_level: 2000 },
          track_type: 'ALL',
          widevine: {
            enable_license_cipher: false,
            override_device_revocation: true,
            security_level: 1,
          },
        },
      ],
    } as TokenPolicyV2Input;
    const text = policyText(issuer.issue({ cid: 'c', policy: shuffled, timestamp: TS }));
    expect(text).toBe(
      '{"policy_version":2,"security_policy":[{"track_type":"ALL",' +
        '"widevine":{"security_level":1,"override_device_revocation":true,"enable_license_cipher":false},' +
        '"playready":{"security_level":2000,"enable_license_cipher":true},' +
        '"fairplay":{"hdcp_enforcement":1,"allow_airplay":false,"allow_av_adapter":true},' +
        '"ncg":{"allow_mobile_abnormal_device":false,"allow_external_display":true,"control_hdcp":1},' +
        '"wiseplay":{"security_level":2,"output_control":1}}]}',
    );
  });

  it('several key lists at once: mpeg_cenc, hls_aes, ncg, each read back', () => {
    const external_key = {
      ncg: { cek: H('c').repeat(2) },
      hls_aes: [{ key: H('b'), iv: H('d'), key_id: H('e'), track_type: 'AUDIO' as const }],
      mpeg_cenc: [
        { key: H('1'), key_id: H('2'), track_type: 'SD' as const },
        { track_type: 'HD' as const, key_id: H('3'), key: H('4'), iv: H('5') },
      ],
    };
    const token = issuer.issue({
      cid: 'c',
      policy: { policy_version: 2, external_key },
      timestamp: TS,
    });
    expect(policyText(token)).toBe(
      '{"policy_version":2,"external_key":{' +
        `"mpeg_cenc":[{"track_type":"SD","key_id":"${H('2')}","key":"${H('1')}"},{"track_type":"HD","key_id":"${H('3')}","key":"${H('4')}","iv":"${H('5')}"}],` +
        // hls_aes: key_id last, as in the v2 vectors.
        `"hls_aes":[{"track_type":"AUDIO","key":"${H('b')}","iv":"${H('d')}","key_id":"${H('e')}"}],` +
        `"ncg":{"cek":"${H('c').repeat(2)}"}}}`,
    );
    const verified = verifyLicenseToken(token, keys);
    expect(verified.version === 2 && verified.policy.external_key).toEqual({
      mpeg_cenc: external_key.mpeg_cenc,
      hls_aes: external_key.hls_aes,
      ncg: external_key.ncg,
    });
  });
});

describe('token JSON with non-ASCII text as \\uXXXX', () => {
  // PHP's json_encode writes "é" as "\u00e9" and "🎬" as a surrogate pair: the hash covers the text.
  const escape = (json: string) =>
    json.replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);

  it.each([
    ['v1', undefined],
    ['v2', { policy_version: 2 } as TokenPolicyV2Input],
  ])('a %s token is read with the characters the escapes name', (_, policy) => {
    const userId = 'élève-🎬';
    const cid = 'café-漢字';
    const token = issuer.issue({ cid, userId, timestamp: TS, ...(policy ? { policy } : {}) });
    const json = Buffer.from(token, 'base64').toString();
    const escaped = escape(json);
    expect(escaped).toContain('\\u00e9l\\u00e8ve-\\ud83c\\udfac');
    expect(escaped).not.toBe(json);
    const verified = verifyLicenseToken(Buffer.from(escaped).toString('base64'), keys);
    expect([verified.userId, verified.cid]).toEqual([userId, cid]);
  });
});
