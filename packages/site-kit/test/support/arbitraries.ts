import fc from 'fast-check';
import { formatTimestamp, type TokenPolicy } from '../../src/index.ts';

const hex = (bytes: number) =>
  fc.uint8Array({ minLength: bytes, maxLength: bytes }).map((b) => Buffer.from(b).toString('hex'));

export const timestampArb = fc
  .date({
    min: new Date('2000-01-01T00:00:00Z'),
    max: new Date('2099-12-31T23:59:59Z'),
    noInvalidDate: true,
  })
  .map(formatTimestamp);

// Valid in strict mode: duration and expire_date only with limit true, and never together.
const playbackArb = fc.oneof(
  fc.record({ limit: fc.constant(false), persistent: fc.boolean() }, { requiredKeys: [] }),
  fc.record(
    { limit: fc.constant(true), persistent: fc.boolean(), duration: fc.nat() },
    { requiredKeys: ['limit'] },
  ),
  fc.record(
    { limit: fc.constant(true), persistent: fc.boolean(), expire_date: timestampArb },
    { requiredKeys: ['limit', 'expire_date'] },
  ),
);

const securityArb = fc.record(
  {
    hardware_drm: fc.boolean(),
    output_protect: fc.record(
      { allow_external_display: fc.boolean(), control_hdcp: fc.constantFrom(0, 1, 2) },
      { requiredKeys: [] },
    ),
    allow_mobile_abnormal_device: fc.boolean(),
    playready_security_level: fc.constantFrom(150, 2000),
  },
  { requiredKeys: [] },
);

const externalKeyArb = fc.record(
  {
    mpeg_cenc: fc.record({ key_id: hex(16), key: hex(16), iv: hex(16) }, { requiredKeys: [] }),
    hls_aes: fc.record({ key: hex(16), iv: hex(16) }, { requiredKeys: [] }),
    ncg: fc.record({ cek: hex(32) }, { requiredKeys: [] }),
  },
  { requiredKeys: [] },
);

export const policyArb: fc.Arbitrary<TokenPolicy> = fc.record(
  { playback_policy: playbackArb, security_policy: securityArb, external_key: externalKeyArb },
  { requiredKeys: [] },
);

/** One rule of the spec broken, with the field path the error must name. */
export const brokenPolicyArb: fc.Arbitrary<{ policy: unknown; path: string }> = fc.oneof(
  fc.integer({ max: -1 }).map((d) => ({
    policy: { playback_policy: { limit: true, duration: d } },
    path: 'policy.playback_policy.duration',
  })),
  fc
    .double({ min: 0.01, max: 1e6, noNaN: true })
    .filter((d) => !Number.isInteger(d))
    .map((d) => ({
      policy: { playback_policy: { limit: true, duration: d } },
      path: 'policy.playback_policy.duration',
    })),
  fc.nat().map((d) => ({
    policy: { playback_policy: { limit: false, duration: d } },
    path: 'policy.playback_policy.duration',
  })),
  timestampArb.map((t) => ({
    policy: { playback_policy: { limit: true, duration: 60, expire_date: t } },
    path: 'policy.playback_policy.expire_date',
  })),
  fc
    .string()
    .filter((s) => !/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/.test(s))
    .map((s) => ({
      policy: { playback_policy: { limit: true, expire_date: s } },
      path: 'policy.playback_policy.expire_date',
    })),
  fc
    .integer()
    .filter((n) => n !== 150 && n !== 2000)
    .map((n) => ({
      policy: { security_policy: { playready_security_level: n } },
      path: 'policy.security_policy.playready_security_level',
    })),
  fc
    .integer()
    .filter((n) => n < 0 || n > 2)
    .map((n) => ({
      policy: { security_policy: { output_protect: { control_hdcp: n } } },
      path: 'policy.security_policy.output_protect.control_hdcp',
    })),
  fc
    .integer({ min: 0, max: 40 })
    .filter((n) => n !== 16)
    .chain((n) =>
      hex(n).map((h) => ({
        policy: { external_key: { mpeg_cenc: { key: h } } },
        path: 'policy.external_key.mpeg_cenc.key',
      })),
    ),
  hex(16).map((h) => ({
    policy: { external_key: { ncg: { cek: h } } },
    path: 'policy.external_key.ncg.cek',
  })),
  fc.constantFrom('limits', 'expiry', 'Duration', 'drm_type').map((k) => ({
    policy: { playback_policy: { [k]: true } },
    path: 'policy.playback_policy',
  })),
  fc.constantFrom('true', 1, null, 'yes').map((v) => ({
    policy: { security_policy: { hardware_drm: v } },
    path: 'policy.security_policy.hardware_drm',
  })),
);
