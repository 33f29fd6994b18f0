/**
 * Every refusal of the emulator has a stable code, an HTTP status and a sentence that says what to fix.
 * The spec lists no error codes of the license service; these are the emulator's own, and the README
 * documents them from this table.
 *
 * Statuses: 400 = the license request itself is malformed, 403 = the request is well formed but not
 * authorized, 404 = the emulator has nothing to serve, 424 (Failed Dependency) = the site's gateway
 * failed. The issue asks for 4xx on every failure; 424 keeps gateway failures in 4xx while telling
 * them apart from the client's own mistakes.
 */
export const ERROR_CODES = {
  MISSING_CUSTOM_DATA: {
    status: 400,
    meaning: 'the license request carries no token or custom data header',
  },
  MALFORMED_TOKEN: {
    status: 400,
    meaning: 'the header is not base64 of a JSON object (neither a token nor custom data)',
  },
  INVALID_TOKEN_FIELD: {
    status: 400,
    meaning: 'a field of the token JSON is missing or breaks its rule (the field is named)',
  },
  INVALID_CUSTOM_DATA: {
    status: 400,
    meaning: 'the gateway-mode custom data breaks its rules (the field is named)',
  },
  BAD_LICENSE_REQUEST: {
    status: 400,
    meaning: 'the body is not a ClearKey license request {"kids":[...],"type":...}',
  },
  UNKNOWN_SITE: {
    status: 403,
    meaning: 'no configured site has the site_id of the token or custom data',
  },
  HASH_MISMATCH: {
    status: 403,
    meaning: "the token's hash is wrong (says whether the other hash reading matches)",
  },
  TOKEN_EXPIRED: {
    status: 403,
    meaning: "now is past the token's timestamp + validity (says by how much)",
  },
  TOKEN_NOT_YET_VALID: {
    status: 403,
    meaning: "the token's timestamp lies in the future beyond the allowed clock skew",
  },
  DECRYPT_FAILED: {
    status: 403,
    meaning: 'the token data or custom data does not decrypt with the site key',
  },
  INVALID_POLICY: {
    status: 403,
    meaning: 'the token data breaks the spec (the field path is named)',
  },
  GATEWAY_NOT_CONFIGURED: {
    status: 403,
    meaning: 'custom data came for a site that has no gatewayUrl',
  },
  GATEWAY_UNREACHABLE: {
    status: 424,
    meaning: "the site's gateway could not be reached (connection refused, DNS, reset)",
  },
  GATEWAY_TIMEOUT: { status: 424, meaning: 'the gateway did not answer within gatewayTimeoutMs' },
  GATEWAY_BAD_STATUS: {
    status: 424,
    meaning: 'the gateway answered with an HTTP status other than 2xx',
  },
  GATEWAY_DECRYPT_FAILED: {
    status: 424,
    meaning: "the gateway's answer does not decrypt with the site key",
  },
  GATEWAY_BAD_RESPONSE: {
    status: 424,
    meaning: "the gateway's decrypted answer breaks the spec (the field path is named)",
  },
  NONCE_MISMATCH: {
    status: 424,
    meaning: "the gateway's answer carries another nonce than the callback",
  },
  GATEWAY_DENIED: {
    status: 403,
    meaning: 'the site refused: its error code and message are in detail',
  },
  LICENSE_EXPIRED: {
    status: 403,
    meaning: 'the effective expire_date (or PD_END) lies in the past',
  },
  LICENSE_NOT_YET_VALID: { status: 403, meaning: 'the gateway PD_START lies in the future' },
  NO_KEY_FOR_CID: {
    status: 404,
    meaning: 'no external key was given and no key is configured for the cid',
  },
  KID_NOT_LICENSED: { status: 403, meaning: 'a requested key ID is not among the keys of the cid' },
  ORIGIN_NOT_ALLOWED: {
    status: 403,
    meaning: 'a browser origin outside allowedOrigins made the request',
  },
  NOT_FOUND: {
    status: 404,
    meaning: 'no such path (the emulator serves POST /license, GET /events, GET /health)',
  },
  METHOD_NOT_ALLOWED: { status: 405, meaning: 'the path exists but not with this method' },
  PAYLOAD_TOO_LARGE: { status: 413, meaning: 'the license request body is larger than 64 KiB' },
  INTERNAL_ERROR: {
    status: 500,
    meaning: 'a bug in the emulator; the message says no more than that',
  },
} as const satisfies Record<string, { status: number; meaning: string }>;

export type EmulatorErrorCode = keyof typeof ERROR_CODES;

/** Body of every failure response. */
export interface ErrorBody {
  error_code: EmulatorErrorCode;
  message: string;
  detail?: Record<string, unknown>;
}

export class EmulatorError extends Error {
  override name = 'EmulatorError';
  readonly code: EmulatorErrorCode;
  readonly detail: Record<string, unknown> | undefined;

  constructor(
    code: EmulatorErrorCode,
    message: string,
    detail?: Record<string, unknown>,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.code = code;
    this.detail = detail;
  }

  get status(): number {
    return ERROR_CODES[this.code].status;
  }

  toBody(): ErrorBody {
    return this.detail === undefined
      ? { error_code: this.code, message: this.message }
      : { error_code: this.code, message: this.message, detail: this.detail };
  }
}
