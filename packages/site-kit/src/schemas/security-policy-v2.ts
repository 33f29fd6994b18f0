import * as z from 'zod';
import { flag, obj, oneOf } from './values.ts';

// The v2 security policy: one entry per track type, each with optional per-DRM objects. Member order
// is the order the service's current token samples emit, so a parsed policy serializes as they do.

/** The `track_type` values of v2 policy entries and keys; `ALL` is the default when left out. */
export const TRACK_TYPES = ['ALL', 'ALL_VIDEO', 'AUDIO', 'SD', 'HD', 'UHD1', 'UHD2'] as const;
/** One of {@link TRACK_TYPES}. */
export type TrackType = (typeof TRACK_TYPES)[number];

/** Builders always emit `track_type`; absent means "ALL", and it is written that way. */
export const trackTypeSchema = oneOf(TRACK_TYPES).default('ALL');

export const widevineSecuritySchema = obj({
  security_level: oneOf(
    [1, 2, 3, 4, 5],
    '1 software secure crypto ... 5 hardware secure all',
  ).optional(),
  required_hdcp_version: oneOf([
    'HDCP_NONE',
    'HDCP_V1',
    'HDCP_V2',
    'HDCP_V2_1',
    'HDCP_V2_2',
    'HDCP_V2_3',
    'HDCP_NO_DIGITAL_OUTPUT',
  ]).optional(),
  required_cgms_flags: oneOf(['CGMS_NONE', 'COPY_FREE', 'COPY_ONCE', 'COPY_NEVER']).optional(),
  disable_analog_output: flag.optional(),
  hdcp_srm_rule: oneOf(['HDCP_SRM_RULE_NONE', 'CURRENT_SRM']).optional(),
  override_device_revocation: flag.optional(),
  enable_license_cipher: flag.optional(),
  allow_test_device: flag.optional(),
});

export const playreadySecuritySchema = obj({
  security_level: oneOf([150, 2000, 3000]).optional(),
  digital_video_protection_level: oneOf([100, 250, 270, 300, 301]).optional(),
  analog_video_protection_level: oneOf([100, 150, 200, 201]).optional(),
  digital_audio_protection_level: oneOf([100, 250, 300, 301]).optional(),
  require_hdcp_type_1: flag.optional(),
  enable_license_cipher: flag.optional(),
});

export const fairplaySecuritySchema = obj({
  hdcp_enforcement: oneOf([-1, 0, 1], '-1 none, 0 HDCP type 0, 1 HDCP type 1').optional(),
  allow_airplay: flag.optional(),
  allow_av_adapter: flag.optional(),
});

export const ncgSecuritySchema = obj({
  allow_mobile_abnormal_device: flag.optional(),
  allow_external_display: flag.optional(),
  control_hdcp: oneOf([0, 1, 2], '0 none, 1 HDCP 1.4, 2 HDCP 2.2').optional(),
});

export const wiseplaySecuritySchema = obj({
  security_level: oneOf([1, 2, 3]).optional(),
  output_control: oneOf([0, 1, 2, 3]).optional(),
});

/**
 * Validates one v2 `security_policy` entry: a `track_type` and optional per-DRM objects
 * (`widevine`, `playready`, `fairplay`, `ncg`, `wiseplay`).
 */
export const securityPolicyEntrySchema = obj({
  track_type: trackTypeSchema,
  widevine: widevineSecuritySchema.optional(),
  playready: playreadySecuritySchema.optional(),
  fairplay: fairplaySecuritySchema.optional(),
  ncg: ncgSecuritySchema.optional(),
  wiseplay: wiseplaySecuritySchema.optional(),
});
/** One v2 `security_policy` entry as read back (`track_type` filled in). */
export type SecurityPolicyV2Entry = z.infer<typeof securityPolicyEntrySchema>;

/** Validates a v2 `security_policy`: an array of per-track entries (v1 used one object). */
export const securityPolicyV2Schema = z.array(securityPolicyEntrySchema, {
  error: (issue) =>
    issue.input === undefined
      ? 'is required'
      : 'must be an array of per-track entries ([{"track_type":"ALL", ...}]); v1 used one object',
});
