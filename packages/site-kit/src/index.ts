// @multidrm/site-kit: the site's side of a multi-DRM license integration.
export { SiteKitError, TokenError, type SiteKitErrorCode, type TokenErrorCode } from './errors.ts';

export { encrypt, decrypt } from './crypto/aes.ts';
export { SITE_KEY_BYTES, type SiteKeyInput } from './crypto/site-key.ts';

export { DRM_TYPES, DEFAULT_DRM_TYPE, drmTypeSchema, type DrmType } from './schemas/drm-type.ts';
export { formatTimestamp, parseTimestamp, timestampSchema } from './schemas/timestamp.ts';
export {
  playbackPolicySchema,
  securityPolicySchema,
  outputProtectSchema,
  externalKeySchema,
  tokenPolicySchema,
  lenientTokenPolicySchema,
  playbackPolicyConflicts,
  type PlaybackPolicy,
  type SecurityPolicy,
  type ExternalKey,
  type TokenPolicy,
} from './schemas/policy.ts';
export { licenseTokenSchema, type LicenseToken } from './schemas/token.ts';
export { describeIssues } from './schemas/issues.ts';

export { type HashEncoding, HASH_ENCODINGS } from './token/hash.ts';
export { type SiteCredentials } from './token/keys.ts';
export {
  createTokenIssuer,
  createLicenseToken,
  NO_USER_ID,
  type IssueOptions,
  type TokenIssuer,
} from './token/issuer.ts';
export { decodeLicenseToken } from './token/decode.ts';
export {
  createTokenVerifier,
  verifyLicenseToken,
  type VerifyOptions,
  type VerifiedLicenseToken,
  type TokenVerifier,
} from './token/verifier.ts';
