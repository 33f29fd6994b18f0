/**
 * Every failure site-kit reports is a `SiteKitError` with a stable `code` and a sentence that says
 * what to fix. Messages never contain keys, plaintexts or whole tokens.
 *
 * | code                  | meaning                                                                  |
 * |-----------------------|--------------------------------------------------------------------------|
 * | INVALID_SITE_KEY      | the site key is not exactly 32 bytes                                     |
 * | INVALID_ACCESS_KEY    | the site access key is empty or not a string                             |
 * | INVALID_BASE64        | a value that must be standard base64 is not                              |
 * | DECRYPT_FAILED        | AES decryption failed: wrong site key, or damaged ciphertext             |
 * | INVALID_INPUT         | an argument breaks a rule (the message names the field and the rule)     |
 * | INVALID_POLICY        | a policy (token data or gateway answer) breaks a rule of the spec        |
 * | MALFORMED_TOKEN       | the token is not base64 of a JSON object                                 |
 * | INVALID_FIELD         | a field of the token JSON is missing or breaks its rule                  |
 * | HASH_MISMATCH         | the token's hash does not match its fields and the access key            |
 * | TOKEN_EXPIRED         | now is past timestamp + validity                                          |
 * | TOKEN_NOT_YET_VALID   | the timestamp lies in the future beyond the allowed clock skew          |
 * | SITE_MISMATCH         | the token was made for another site ID                                   |
 * | INVALID_GATEWAY_REQUEST  | a gateway callback request breaks the spec (the message names the field) |
 * | INVALID_GATEWAY_RESPONSE | a gateway answer breaks the spec, or does not match its request's format |
 * | INVALID_CUSTOM_DATA      | gateway-mode custom data is not base64 of the expected JSON envelope     |
 * | INVALID_DECISION         | a site's authorize function answered something that is not a decision   |
 */
export type SiteKitErrorCode =
  | 'INVALID_SITE_KEY'
  | 'INVALID_ACCESS_KEY'
  | 'INVALID_BASE64'
  | 'DECRYPT_FAILED'
  | 'INVALID_INPUT'
  | 'INVALID_POLICY'
  | 'INVALID_GATEWAY_REQUEST'
  | 'INVALID_GATEWAY_RESPONSE'
  | 'INVALID_CUSTOM_DATA'
  | 'INVALID_DECISION'
  | TokenErrorCode;

/**
 * The {@link SiteKitErrorCode}s a {@link TokenError} carries: why the license service would refuse
 * a token.
 */
export type TokenErrorCode =
  | 'MALFORMED_TOKEN'
  | 'INVALID_FIELD'
  | 'HASH_MISMATCH'
  | 'TOKEN_EXPIRED'
  | 'TOKEN_NOT_YET_VALID'
  | 'DECRYPT_FAILED'
  | 'INVALID_POLICY'
  | 'SITE_MISMATCH';

/**
 * The error site-kit throws: a stable {@link SiteKitErrorCode} in `code` and a message that says
 * what to fix (never a key or a whole token).
 */
export class SiteKitError extends Error {
  override name = 'SiteKitError';
  readonly code: SiteKitErrorCode;

  constructor(code: SiteKitErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
  }
}

/** Thrown by `verifyLicenseToken`: why the license service would refuse the token. */
export class TokenError extends SiteKitError {
  override name = 'TokenError';
  declare readonly code: TokenErrorCode;
  /**
   * For INVALID_FIELD: the token JSON member that failed first (e.g. "drm_type"), so a license
   * service can answer a bad drm_type differently from other invalid JSON.
   */
  readonly field: string | undefined;

  constructor(
    code: TokenErrorCode,
    message: string,
    options?: { cause?: unknown; field?: string },
  ) {
    super(code, message, options);
    this.field = options?.field;
  }
}
