// What `@multidrm/site-kit/token` exports in every runtime; ../token.ts and ../web/token.ts add the
// functions whose crypto differs.
export { SiteKitError, TokenError, type SiteKitErrorCode, type TokenErrorCode } from '../errors.ts';
export { SITE_KEY_BYTES, type SiteKeyInput } from '../crypto/site-key.ts';
export { type DrmType } from '../schemas/drm-type.ts';
export { type TokenPolicy } from '../schemas/policy.ts';
export { type TokenPolicyV2, type TokenPolicyV2Input } from '../schemas/policy-v2.ts';
export {
  type LicenseToken,
  type LicenseTokenV1,
  type LicenseTokenV2,
  type ResponseFormat,
} from '../schemas/token.ts';
export { type HashEncoding, HASH_ENCODINGS } from '../token/hash-input.ts';
export { type SiteCredentials } from '../token/keys.ts';
export {
  NO_USER_ID,
  type IssueOptions,
  type AnyTokenPolicy,
  type PreparedPolicy,
} from '../token/issue-rules.ts';
export { type AsyncTokenIssuer } from '../token/async-issuer.ts';
export { type AsyncTokenVerifier } from '../token/async-verifier.ts';
export {
  decodeLicenseToken,
  readLicenseToken,
  type ReadLicenseToken,
  type TokenVersion,
} from '../token/decode.ts';
export { convertPolicyToV2, type PolicyConversion } from '../token/convert-policy.ts';
export {
  DEFAULT_VALIDITY_SECONDS,
  DEFAULT_CLOCK_SKEW_SECONDS,
  type VerifyOptions,
  type VerifyCallOptions,
  type VerifiedLicenseToken,
  type VerifiedLicenseTokenV1,
  type VerifiedLicenseTokenV2,
} from '../token/verify-rules.ts';
export { type TokenHandlerOptions, type TokenGrant } from '../http/token-handler.ts';
export {
  type AuthorizeContext,
  type SiteEndpointCommonOptions,
  type SiteEndpointEvent,
  type SiteRefusal,
} from '../http/site-endpoint.ts';
export { type RequestGuardOptions } from '../http/request-guard.ts';
export { type PlayerRequest } from '../http/site-request.ts';
export { CUSTOM_DATA_HEADER, type CorsOptions } from '../http/cors.ts';
export { RENEWAL_INTERVAL_HEADER } from '../http/renewal-interval.ts';
export { type WebHandler } from '../http/web.ts';
export {
  TOKEN_REFUSAL_CODES,
  DRM_TYPE_REFUSAL_CODE,
  type InspectOptions,
  type TokenInspection,
} from '../token/inspect-report.ts';
