import * as z from 'zod/mini';
import { flag, obj, oneOf } from './values.ts';

// The v2 security policy: one entry per track type, each with optional per-DRM objects. Member order
// is the order the service's current token samples emit, so a parsed policy serializes as they do.

/** The `track_type` values of v2 policy entries and keys; `ALL` is the default when left out. */
export const TRACK_TYPES = ['ALL', 'ALL_VIDEO', 'AUDIO', 'SD', 'HD', 'UHD1', 'UHD2'] as const;
/** One of {@link TRACK_TYPES}. */
export type TrackType = (typeof TRACK_TYPES)[number];

/** Builders always emit `track_type`; absent means "ALL", and it is written that way. */
export const trackTypeSchema = z._default(oneOf(TRACK_TYPES), 'ALL');

export const widevineSecuritySchema = obj({
  security_level: z.optional(
    oneOf([1, 2, 3, 4, 5], '1 software secure crypto ... 5 hardware secure all'),
  ),
  required_hdcp_version: z.optional(
    oneOf([
      'HDCP_NONE',
      'HDCP_V1',
      'HDCP_V2',
      'HDCP_V2_1',
      'HDCP_V2_2',
      'HDCP_V2_3',
      'HDCP_NO_DIGITAL_OUTPUT',
    ]),
  ),
  required_cgms_flags: z.optional(oneOf(['CGMS_NONE', 'COPY_FREE', 'COPY_ONCE', 'COPY_NEVER'])),
  disable_analog_output: z.optional(flag),
  hdcp_srm_rule: z.optional(oneOf(['HDCP_SRM_RULE_NONE', 'CURRENT_SRM'])),
  override_device_revocation: z.optional(flag),
  enable_license_cipher: z.optional(flag),
  allow_test_device: z.optional(flag),
});

export const playreadySecuritySchema = obj({
  security_level: z.optional(oneOf([150, 2000, 3000])),
  digital_video_protection_level: z.optional(oneOf([100, 250, 270, 300, 301])),
  analog_video_protection_level: z.optional(oneOf([100, 150, 200, 201])),
  digital_audio_protection_level: z.optional(oneOf([100, 250, 300, 301])),
  require_hdcp_type_1: z.optional(flag),
  enable_license_cipher: z.optional(flag),
});

export const fairplaySecuritySchema = obj({
  hdcp_enforcement: z.optional(oneOf([-1, 0, 1], '-1 none, 0 HDCP type 0, 1 HDCP type 1')),
  allow_airplay: z.optional(flag),
  allow_av_adapter: z.optional(flag),
});

export const ncgSecuritySchema = obj({
  allow_mobile_abnormal_device: z.optional(flag),
  allow_external_display: z.optional(flag),
  control_hdcp: z.optional(oneOf([0, 1, 2], '0 none, 1 HDCP 1.4, 2 HDCP 2.2')),
});

export const wiseplaySecuritySchema = obj({
  security_level: z.optional(oneOf([1, 2, 3])),
  output_control: z.optional(oneOf([0, 1, 2, 3])),
});

/**
 * Validates one v2 `security_policy` entry: a `track_type` and optional per-DRM objects
 * (`widevine`, `playready`, `fairplay`, `ncg`, `wiseplay`).
 */
export const securityPolicyEntrySchema = obj({
  track_type: trackTypeSchema,
  widevine: z.optional(widevineSecuritySchema),
  playready: z.optional(playreadySecuritySchema),
  fairplay: z.optional(fairplaySecuritySchema),
  ncg: z.optional(ncgSecuritySchema),
  wiseplay: z.optional(wiseplaySecuritySchema),
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
