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

export { type HashEncoding, HASH_ENCODINGS } from './token/hash.ts';
export { type SiteCredentials } from './token/keys.ts';
export {
  createTokenIssuer,
  createLicenseToken,
  NO_USER_ID,
  type IssueOptions,
  type AnyTokenPolicy,
  type TokenIssuer,
  type PreparedPolicy,
} from './token/issuer.ts';
export {
  decodeLicenseToken,
  readLicenseToken,
  type ReadLicenseToken,
  type TokenVersion,
} from './token/decode.ts';
export { convertPolicyToV2, type PolicyConversion } from './token/convert-policy.ts';
export {
  createTokenVerifier,
  verifyLicenseToken,
  type VerifyOptions,
  DEFAULT_VALIDITY_SECONDS,
  type VerifiedLicenseToken,
  type VerifiedLicenseTokenV1,
  type VerifiedLicenseTokenV2,
  type TokenVerifier,
} from './token/verifier.ts';

// Gateway callback codec and gateway-mode custom data.
export { type GatewayFormat, type GatewayRequest } from './gateway/request.ts';
export {
  SUCCESS_CODE,
  answerNonce,
  type GatewayAnswer,
  type JsonGatewayAnswer,
  type XmlGatewayAnswer,
} from './gateway/answer.ts';
export {
  encodeGatewayRequest,
  decodeGatewayRequest,
  encodeGatewayAnswer,
  decodeGatewayResponse,
} from './gateway/codec.ts';
export {
  createCustomData,
  readCustomDataEnvelope,
  parseCustomData,
  type CustomDataOptions,
  type CustomDataEnvelope,
  type ParsedCustomData,
} from './custom-data/custom-data.ts';

// HTTP side: the gateway callback handler, the site's token and custom-data endpoints, node:http.
export { createGatewayHandler, type GatewayHandlerOptions } from './gateway/handler.ts';
export { type GatewayDecision, type XmlExtras } from './gateway/decision.ts';
export {
  GATEWAY_ERROR_CODES,
  GATEWAY_ERROR_MESSAGES,
  type GatewayErrorCode,
  type GatewayErrorKind,
} from './gateway/codes.ts';
export { type GatewayEvent, type GatewayEventListener } from './gateway/events.ts';
export {
  createTokenHandler,
  type TokenHandlerOptions,
  type TokenGrant,
} from './http/token-handler.ts';
export {
  createCustomDataHandler,
  type CustomDataHandlerOptions,
  type CustomDataGrant,
} from './custom-data/handler.ts';
export { type SiteRefusal, type SiteEndpointEvent } from './http/site-endpoint.ts';
export { type PlayerRequest } from './http/site-request.ts';
export { CUSTOM_DATA_HEADER, type CorsOptions } from './http/cors.ts';
export { DEFAULT_MAX_BODY_BYTES } from './http/body.ts';
export { toNodeListener, type WebHandler, type NodeListener } from './http/node-listener.ts';
