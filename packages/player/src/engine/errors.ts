/**
 * Every failure this package reports is a `LicenseAuthError` with a stable `code` and a sentence
 * that says what to fix. Messages never contain tokens or custom data.
 *
 * | code                  | meaning                                                                  |
 * |-----------------------|--------------------------------------------------------------------------|
 * | INVALID_OPTIONS       | `attachLicenseAuth` was given options that break a rule (all are listed) |
 * | TOKEN_FETCH_FAILED    | the site's token endpoint failed or refused (`TokenFetchError`)          |
 * | TOKEN_TIMEOUT         | the token did not arrive within `tokenTimeoutMs` (`TokenFetchError`)     |
 * | ABORTED               | a token fetch or license request was cut short by `detach()` or unloading |
 * | NO_CONTENT_ID         | no content ID could be found for a license request                       |
 * | LICENSE_SERVICE_ERROR | the license service refused: `{"errorCode","message"}` (`LicenseServiceError`) |
 * | LICENSE_RESPONSE      | a `json`-format license answer holds no license this package can read   |
 * | LICENSE_REQUEST_FAILED| a license request an adapter sends itself got no answer, or HTTP 4xx/5xx |
 * | FAIRPLAY_CERTIFICATE  | the FairPlay certificate is missing, unreadable or failed to load        |
 * | FAIRPLAY_RESPONSE     | the FairPlay license answer holds no CKC                                 |
 */
export type LicenseAuthErrorCode =
  | 'INVALID_OPTIONS'
  | 'TOKEN_FETCH_FAILED'
  | 'TOKEN_TIMEOUT'
  | 'ABORTED'
  | 'NO_CONTENT_ID'
  | 'LICENSE_SERVICE_ERROR'
  | 'LICENSE_RESPONSE'
  | 'LICENSE_REQUEST_FAILED'
  | 'FAIRPLAY_CERTIFICATE'
  | 'FAIRPLAY_RESPONSE';

/**
 * The error this package reports: a stable {@link LicenseAuthErrorCode} in `code` and a message
 * that says what to fix.
 */
export class LicenseAuthError extends Error {
  override name = 'LicenseAuthError';
  declare readonly code: LicenseAuthErrorCode;

  constructor(code: LicenseAuthErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
  }
}

/** What a {@link TokenFetchError} tells about the failed fetch. */
export interface TokenFetchErrorInfo {
  /** The token endpoint (or `getToken()`/`getCustomData()` when the app fetches itself). */
  url: string;
  /** HTTP status; `undefined` when no answer arrived (network, CORS, timeout). */
  status?: number;
  /** The site's reason: its error message or the start of its answer, as given by the site. */
  reason?: string;
}

/**
 * The site's token (or custom data) endpoint failed, refused or timed out; `status` and `reason`
 * say what the site answered.
 */
export class TokenFetchError extends LicenseAuthError {
  override name = 'TokenFetchError';
  declare readonly code: 'TOKEN_FETCH_FAILED' | 'TOKEN_TIMEOUT';
  declare readonly url: string;
  declare readonly status: number | undefined;
  declare readonly reason: string | undefined;

  constructor(
    code: 'TOKEN_FETCH_FAILED' | 'TOKEN_TIMEOUT',
    info: TokenFetchErrorInfo,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(code, message, options);
    Object.assign(this, info);
  }
}

/** What a {@link LicenseServiceError} tells about the refusal. */
export interface LicenseServiceErrorInfo {
  /** The service's code as digits, e.g. `7011` (sent as a string or a number). */
  errorCode: string;
  /** The service's own message. */
  serviceMessage: string;
  /** A `detail` member, as sent, when the server adds one (the service itself does not). */
  detail?: unknown;
  /** 8002 (the site's gateway refused): the site's own code, from the `ERROR` inside `message`. */
  siteErrorCode?: string;
  /** 8002: the site's own text, from the `MESSAGE` inside `message`. */
  siteErrorMessage?: string;
  /** HTTP status of the license answer (the service may send errors with 200). */
  status: number;
  url: string;
  keySystem: string;
  /**
   * The limit the refusal names: `streams` (6003, the user's concurrent streams: "too many
   * screens"), `playback-period` (8711, the period is over); `undefined` for other refusals.
   */
  limit?: ServiceLimit;
  /** The refused request was a license renewal (`licenseRequestType: 'license-renewal'`). */
  renewal?: boolean;
}

/** A limit of the service's policy that a refusal names. */
export type ServiceLimit = 'streams' | 'playback-period';

/**
 * The license service refused the license request: its `errorCode` and message, and for 8002 the
 * site gateway's own code and text.
 */
export class LicenseServiceError extends LicenseAuthError {
  override name = 'LicenseServiceError';
  declare readonly code: 'LICENSE_SERVICE_ERROR';
  declare readonly errorCode: string;
  declare readonly serviceMessage: string;
  declare readonly detail: unknown;
  declare readonly siteErrorCode: string | undefined;
  declare readonly siteErrorMessage: string | undefined;
  declare readonly status: number;
  declare readonly url: string;
  declare readonly keySystem: string;
  declare readonly limit: ServiceLimit | undefined;
  declare readonly renewal: boolean | undefined;

  constructor(info: LicenseServiceErrorInfo, message: string) {
    super('LICENSE_SERVICE_ERROR', message);
    Object.assign(this, info);
  }
}
