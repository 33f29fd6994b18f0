import { describe, expect, it } from 'vitest';
import {
  decodeGatewayResponse,
  encodeGatewayRequest,
  decodeGatewayRequest,
  encrypt,
  tokenPolicySchema,
  SECURITY_POLICY_DEFAULTS,
} from '../../src/index.ts';
import { failure } from '../support/failure.ts';

// Near misses of every enum and range: random negative checks never draw 3000 or 3, so each boundary
// is listed here (a mutant that widens a rule by one value fails one of these rows).
const H = (bytes: number) => 'ab'.repeat(bytes);
const B64 = (bytes: number) => Buffer.alloc(bytes, 7).toString('base64');
const KEY = 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa';

const policyRows: [string, unknown, boolean][] = [
  ['playready_security_level 150', { security_policy: { playready_security_level: 150 } }, true],
  ['playready_security_level 2000', { security_policy: { playready_security_level: 2000 } }, true],
  ['playready_security_level 149', { security_policy: { playready_security_level: 149 } }, false],
  ['playready_security_level 151', { security_policy: { playready_security_level: 151 } }, false],
  ['playready_security_level 1999', { security_policy: { playready_security_level: 1999 } }, false],
  ['playready_security_level 2001', { security_policy: { playready_security_level: 2001 } }, false],
  [
    'playready_security_level 3000 (a v2 value only)',
    { security_policy: { playready_security_level: 3000 } },
    false,
  ],
  [
    'playready_security_level "150"',
    { security_policy: { playready_security_level: '150' } },
    false,
  ],
  ['control_hdcp 0', { security_policy: { output_protect: { control_hdcp: 0 } } }, true],
  ['control_hdcp 2', { security_policy: { output_protect: { control_hdcp: 2 } } }, true],
  ['control_hdcp -1', { security_policy: { output_protect: { control_hdcp: -1 } } }, false],
  ['control_hdcp 3', { security_policy: { output_protect: { control_hdcp: 3 } } }, false],
  ['control_hdcp 1.5', { security_policy: { output_protect: { control_hdcp: 1.5 } } }, false],
  ['duration 0', { playback_policy: { limit: true, duration: 0 } }, true],
  ['duration -1', { playback_policy: { limit: true, duration: -1 } }, false],
  ['duration 0.5', { playback_policy: { limit: true, duration: 0.5 } }, false],
  ...(['key_id', 'key', 'iv'] as const).flatMap((m): [string, unknown, boolean][] => [
    [`mpeg_cenc.${m} of 16 bytes`, { external_key: { mpeg_cenc: { [m]: H(16) } } }, true],
    [`mpeg_cenc.${m} of 15 bytes`, { external_key: { mpeg_cenc: { [m]: H(15) } } }, false],
    [`mpeg_cenc.${m} of 17 bytes`, { external_key: { mpeg_cenc: { [m]: H(17) } } }, false],
    [`mpeg_cenc.${m} not hex`, { external_key: { mpeg_cenc: { [m]: 'zz'.repeat(16) } } }, false],
  ]),
  ...(['key', 'iv'] as const).flatMap((m): [string, unknown, boolean][] => [
    [`hls_aes.${m} of 16 bytes`, { external_key: { hls_aes: { [m]: H(16) } } }, true],
    [`hls_aes.${m} of 15 bytes`, { external_key: { hls_aes: { [m]: H(15) } } }, false],
    [`hls_aes.${m} of 17 bytes`, { external_key: { hls_aes: { [m]: H(17) } } }, false],
  ]),
  ['ncg.cek of 32 bytes', { external_key: { ncg: { cek: H(32) } } }, true],
  ['ncg.cek of 31 bytes', { external_key: { ncg: { cek: H(31) } } }, false],
  ['ncg.cek of 33 bytes', { external_key: { ncg: { cek: H(33) } } }, false],
];

const xmlAnswer = (inner: string) =>
  `<?xml version="1.0" encoding="utf-8"?><RES>${inner}<NONCE>n</NONCE></RES>`;
const xmlRows: [string, string, boolean][] = [
  ['ERROR 0000', '<ERROR>0000</ERROR><ERRMSG>ok</ERRMSG>', true],
  ['ERROR 4031', '<ERROR>4031</ERROR><ERRMSG>no</ERRMSG>', true],
  ['ERROR of 3 digits', '<ERROR>403</ERROR><ERRMSG>no</ERRMSG>', false],
  ['ERROR of 5 digits', '<ERROR>40310</ERROR><ERRMSG>no</ERRMSG>', false],
  // "a 4-byte code other than 0000": letters are bytes too.
  ['ERROR with a letter', '<ERROR>E001</ERROR><ERRMSG>no</ERRMSG>', true],
  ['ERROR with a space', '<ERROR>E 01</ERROR><ERRMSG>no</ERRMSG>', false],
  ['LIMIT Y without PD_END', '<ERROR>0000</ERROR><ERRMSG>ok</ERRMSG><LIMIT>Y</LIMIT>', false],
  [
    'PD_START not before PD_END',
    '<ERROR>0000</ERROR><ERRMSG>ok</ERRMSG><LIMIT>Y</LIMIT><PD_START>2026-03-01T12:00:00Z</PD_START><PD_END>2026-03-01T12:00:00Z</PD_END>',
    false,
  ],
  ['PC HDCP 1', '<ERROR>0000</ERROR><ERRMSG>ok</ERRMSG><PC HDCP="1"/>', true],
  ['PC HDCP 2', '<ERROR>0000</ERROR><ERRMSG>ok</ERRMSG><PC HDCP="2"/>', false],
  ['PC HDCP -1', '<ERROR>0000</ERROR><ERRMSG>ok</ERRMSG><PC HDCP="-1"/>', false],
  ['PC CGMS-A -1', '<ERROR>0000</ERROR><ERRMSG>ok</ERRMSG><PC CGMS-A="-1"/>', true],
  ['PC CGMS-A 3', '<ERROR>0000</ERROR><ERRMSG>ok</ERRMSG><PC CGMS-A="3"/>', true],
  ['PC CGMS-A -2', '<ERROR>0000</ERROR><ERRMSG>ok</ERRMSG><PC CGMS-A="-2"/>', false],
  ['PC CGMS-A 4', '<ERROR>0000</ERROR><ERRMSG>ok</ERRMSG><PC CGMS-A="4"/>', false],
  ['PC APS 3', '<ERROR>0000</ERROR><ERRMSG>ok</ERRMSG><PC APS="3"/>', true],
  ['PC APS 4', '<ERROR>0000</ERROR><ERRMSG>ok</ERRMSG><PC APS="4"/>', false],
  ['PC APS -1', '<ERROR>0000</ERROR><ERRMSG>ok</ERRMSG><PC APS="-1"/>', false],
  ...(['KEYID', 'KEY', 'IV'] as const).flatMap((a): [string, string, boolean][] => {
    const others = (n: number) =>
      ['KEYID', 'KEY']
        .filter((o) => o !== a)
        .map((o) => `${o}="${B64(16)}"`)
        .join(' ') + ` ${a}="${B64(n)}"`;
    return [
      [
        `PACKINFO ${a} of 16 bytes`,
        `<ERROR>0000</ERROR><ERRMSG>ok</ERRMSG><PACKINFO ${others(16)}/>`,
        true,
      ],
      [
        `PACKINFO ${a} of 15 bytes`,
        `<ERROR>0000</ERROR><ERRMSG>ok</ERRMSG><PACKINFO ${others(15)}/>`,
        false,
      ],
      [
        `PACKINFO ${a} of 17 bytes`,
        `<ERROR>0000</ERROR><ERRMSG>ok</ERRMSG><PACKINFO ${others(17)}/>`,
        false,
      ],
    ];
  }),
];

describe('boundaries of every enum and range', () => {
  for (const [name, policy, valid] of policyRows) {
    it(`token data: ${name} is ${valid ? 'accepted' : 'refused'}`, () => {
      expect(tokenPolicySchema.safeParse(policy).success).toBe(valid);
    });
  }

  for (const [name, inner, valid] of xmlRows) {
    it(`XML gateway answer: ${name} is ${valid ? 'accepted' : 'refused'}`, () => {
      const read = () => decodeGatewayResponse(encrypt(xmlAnswer(inner), KEY), 'xml', KEY);
      if (valid) expect(read().format).toBe('xml');
      else expect(failure(read).code).toBe('INVALID_GATEWAY_RESPONSE');
    });
  }

  it("device_type passes the spec's listed values and any other value through, as sent", () => {
    for (const device_type of ['OS-X', 'Windows', 'Android', 'iOS', 'Linux']) {
      const body = encodeGatewayRequest(
        { format: 'json', user_id: 'u', cid: 'c', nonce: 'n', drm_type: 'NCG', device_type },
        KEY,
      );
      expect(decodeGatewayRequest(body, KEY).device_type).toBe(device_type);
    }
    const wrong = () =>
      encodeGatewayRequest(
        {
          format: 'json',
          user_id: 'u',
          cid: 'c',
          nonce: 'n',
          drm_type: 'NCG',
          device_type: 7 as never,
        },
        KEY,
      );
    expect(failure(wrong).message).toMatch(/request.device_type: must be a string/);
  });

  it("the security_policy defaults are the spec's, in one exported place", () => {
    expect(SECURITY_POLICY_DEFAULTS).toEqual({
      hardware_drm: false,
      allow_mobile_abnormal_device: false,
      playready_security_level: 150,
      output_protect: { allow_external_display: false, control_hdcp: 0 },
    });
  });
});
