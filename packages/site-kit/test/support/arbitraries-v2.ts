import fc from 'fast-check';
import { TRACK_TYPES, type TokenPolicyV2 } from '../../src/index.ts';
import { timestampArb } from './arbitraries.ts';

const hex = (bytes: number) =>
  fc.uint8Array({ minLength: bytes, maxLength: bytes }).map((b) => Buffer.from(b).toString('hex'));
const opt = <T>(shape: { [K in keyof T]: fc.Arbitrary<T[K]> }) =>
  fc.record(shape, { requiredKeys: [] }) as fc.Arbitrary<Partial<T>>;
const track = fc.constantFrom(...TRACK_TYPES);

// Valid for the strict builder: rental_duration only with persistent true.
const playbackArb = fc.oneof(
  opt({
    persistent: fc.boolean(),
    license_duration: fc.nat(),
    expire_date: timestampArb,
    allowed_track_types: fc.constantFrom('ALL', 'SD_ONLY', 'SD_HD', 'SD_UHD1', 'SD_UHD2'),
    playback_duration: fc.nat(),
    max_stream_per_user: fc.integer({ min: 1, max: 100 }),
    renewal_duration: fc.nat(),
  }),
  fc.record({ persistent: fc.constant(true), rental_duration: fc.nat() }),
);

const entryArb = fc
  .tuple(
    track,
    opt({
      widevine: opt({
        security_level: fc.constantFrom(1, 2, 3, 4, 5),
        required_hdcp_version: fc.constantFrom(
          'HDCP_NONE',
          'HDCP_V1',
          'HDCP_V2',
          'HDCP_V2_1',
          'HDCP_V2_2',
          'HDCP_V2_3',
          'HDCP_NO_DIGITAL_OUTPUT',
        ),
        required_cgms_flags: fc.constantFrom('CGMS_NONE', 'COPY_FREE', 'COPY_ONCE', 'COPY_NEVER'),
        disable_analog_output: fc.boolean(),
        hdcp_srm_rule: fc.constantFrom('HDCP_SRM_RULE_NONE', 'CURRENT_SRM'),
        override_device_revocation: fc.boolean(),
        enable_license_cipher: fc.boolean(),
        allow_test_device: fc.boolean(),
      }),
      playready: opt({
        security_level: fc.constantFrom(150, 2000, 3000),
        digital_video_protection_level: fc.constantFrom(100, 250, 270, 300, 301),
        analog_video_protection_level: fc.constantFrom(100, 150, 200, 201),
        digital_audio_protection_level: fc.constantFrom(100, 250, 300, 301),
        require_hdcp_type_1: fc.boolean(),
        enable_license_cipher: fc.boolean(),
      }),
      fairplay: opt({
        hdcp_enforcement: fc.constantFrom(-1, 0, 1),
        allow_airplay: fc.boolean(),
        allow_av_adapter: fc.boolean(),
      }),
      ncg: opt({
        allow_mobile_abnormal_device: fc.boolean(),
        allow_external_display: fc.boolean(),
        control_hdcp: fc.constantFrom(0, 1, 2),
      }),
      wiseplay: opt({
        security_level: fc.constantFrom(1, 2, 3),
        output_control: fc.constantFrom(0, 1, 2, 3),
      }),
    }),
  )
  .map(([track_type, drms]) => ({ track_type, ...drms }));

const cencArb = fc
  .tuple(track, hex(16), hex(16), fc.option(hex(16), { nil: undefined }))
  .map(([track_type, key_id, key, iv]) => ({
    track_type,
    key_id,
    key,
    ...(iv === undefined ? {} : { iv }),
  }));
const hlsArb = fc
  .tuple(track, hex(16), hex(16), hex(16))
  .map(([track_type, key, iv, key_id]) => ({ track_type, key, iv, key_id }));

const externalArb = opt({
  mpeg_cenc: fc.array(cencArb, { minLength: 1, maxLength: 3 }),
  hls_aes: fc.array(hlsArb, { minLength: 1, maxLength: 2 }),
  ncg: fc.record({ cek: hex(32), track_type: track }, { requiredKeys: ['cek'] }),
}).filter((keys) => Object.keys(keys).length > 0);

/** Any v2 policy the strict builder takes, written in the canonical shape (track_type given). */
export const policyV2Arb = opt({
  playback_policy: playbackArb,
  security_policy: fc.array(entryArb, { maxLength: 3 }),
  external_key: externalArb,
}).map((rest) => ({ policy_version: 2, ...rest }) as TokenPolicyV2);
