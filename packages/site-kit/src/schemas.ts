// @multidrm/site-kit/schemas: the zod schemas of every resource and the helpers that word their
// errors. Pure: the same in every runtime.
export {
  DRM_TYPES,
  DEFAULT_DRM_TYPE,
  drmTypeSchema,
  canonicalDrmType,
  type DrmType,
} from './schemas/drm-type.ts';
export { formatTimestamp, parseTimestamp, timestampSchema } from './schemas/timestamp.ts';
export {
  playbackPolicySchema,
  securityPolicySchema,
  outputProtectSchema,
  externalKeySchema,
  tokenPolicySchema,
  lenientTokenPolicySchema,
  PLAYBACK_POLICY_DEFAULTS,
  SECURITY_POLICY_DEFAULTS,
  playbackPolicyConflicts,
  type PlaybackPolicy,
  type SecurityPolicy,
  type ExternalKey,
  type TokenPolicy,
} from './schemas/policy.ts';
export {
  TRACK_TYPES,
  securityPolicyV2Schema,
  securityPolicyEntrySchema,
  type TrackType,
  type SecurityPolicyV2Entry,
} from './schemas/security-policy-v2.ts';
export {
  tokenPolicyV2Schema,
  playbackPolicyV2Schema,
  externalKeyV2Schema,
  type TokenPolicyV2,
  type TokenPolicyV2Input,
  type PlaybackPolicyV2,
  type ExternalKeyV2,
} from './schemas/policy-v2.ts';
export {
  licenseTokenV1Schema,
  licenseTokenV2Schema,
  RESPONSE_FORMATS,
  type LicenseToken,
  type LicenseTokenV1,
  type LicenseTokenV2,
  type ResponseFormat,
} from './schemas/token.ts';
export { describeIssues } from './schemas/issues.ts';
