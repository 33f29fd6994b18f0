import type { Answer } from '../http/exchange.ts';

/**
 * The proxy's own failures, each a code, an HTTP status and a sentence in a JSON body
 * `{"code","message"}`. They never carry a stack, a key or a token. Answers of the license service
 * (licenses, and its refusals: HTTP 200 + `errorCode`) are relayed as they came and are not these;
 * its server errors (UPSTREAM_ERROR) and answers of other content types (UPSTREAM_BAD_ANSWER) never
 * reach the browser.
 *
 * | code                     | status  | meaning                                                      |
 * |--------------------------|---------|--------------------------------------------------------------|
 * | ORIGIN_NOT_ALLOWED       | 403     | a browser page on an origin not in `cors.origins`            |
 * | METHOD_NOT_ALLOWED       | 405     | not POST (license), GET (certificate) or OPTIONS             |
 * | UNKNOWN_DRM              | 400     | `drmType` missing, repeated or not a DRM the proxy knows      |
 * | BAD_CID                  | 400     | `cid` missing, repeated, too long or with control characters  |
 * | NO_CERTIFICATE           | 400     | a certificate asked for a DRM that has none (or it is off)    |
 * | BAD_BODY                 | 400     | the license request body is empty or could not be read        |
 * | BODY_TOO_LARGE           | 413     | the body is over `maxBodyBytes` (refused before read whole)   |
 * | SITE_REFUSED             | 401/403 | the site's `authorize` refused: its own status and reason     |
 * | SITE_ERROR               | 500     | `authorize` threw (the error goes to `onError`) or answered   |
 * |                          |         | no decision; no token was made                                 |
 * | SITE_TIMEOUT             | 503     | `authorize` did not decide within `timeouts.authorizeMs`      |
 * | RATE_LIMITED             | 429/503 | over a budget of `rateLimit` (503: its store is away and the site chose to refuse) |
 * | UPSTREAM_UNREACHABLE     | 502     | the license service could not be reached                      |
 * | UPSTREAM_ERROR           | 502     | it answered a server error (5xx); its page is not passed on  |
 * | UPSTREAM_BAD_ANSWER      | 502     | a redirect, a content type no license answer has, a refusal   |
 * |                          |         | whose errorCode is not text or a number, or a json license    |
 * |                          |         | the proxy cannot read                                          |
 * | UPSTREAM_ANSWER_TOO_LARGE| 502     | its answer is over `maxAnswerBytes`                           |
 * | UPSTREAM_TIMEOUT         | 504     | no whole answer within `timeouts.upstreamMs`                  |
 * | INTERNAL_ERROR           | 500     | a bug of the proxy itself (the error goes to `onError`)       |
 */
export type ProxyErrorCode =
  | 'ORIGIN_NOT_ALLOWED'
  | 'METHOD_NOT_ALLOWED'
  | 'UNKNOWN_DRM'
  | 'BAD_CID'
  | 'NO_CERTIFICATE'
  | 'BAD_BODY'
  | 'BODY_TOO_LARGE'
  | 'SITE_REFUSED'
  | 'SITE_ERROR'
  | 'SITE_TIMEOUT'
  | 'RATE_LIMITED'
  | 'UPSTREAM_UNREACHABLE'
  | 'UPSTREAM_ERROR'
  | 'UPSTREAM_BAD_ANSWER'
  | 'UPSTREAM_ANSWER_TOO_LARGE'
  | 'UPSTREAM_TIMEOUT'
  | 'INTERNAL_ERROR';

/** The JSON body of the proxy's own failures. */
export interface ProxyErrorBody {
  code: ProxyErrorCode;
  message: string;
}

const STATUS: Record<Exclude<ProxyErrorCode, 'SITE_REFUSED'>, number> = {
  ORIGIN_NOT_ALLOWED: 403,
  METHOD_NOT_ALLOWED: 405,
  UNKNOWN_DRM: 400,
  BAD_CID: 400,
  NO_CERTIFICATE: 400,
  BAD_BODY: 400,
  BODY_TOO_LARGE: 413,
  SITE_ERROR: 500,
  SITE_TIMEOUT: 503,
  RATE_LIMITED: 429,
  UPSTREAM_UNREACHABLE: 502,
  UPSTREAM_ERROR: 502,
  UPSTREAM_BAD_ANSWER: 502,
  UPSTREAM_ANSWER_TOO_LARGE: 502,
  UPSTREAM_TIMEOUT: 504,
  INTERNAL_ERROR: 500,
};

/** A failure the handler answers: thrown inside it, turned into a response at its edge. */
export class ProxyFailure {
  readonly code: ProxyErrorCode;
  readonly status: number;
  readonly message: string;
  /** What `onEvent` is told: the message, or more for the site's eyes only (never the client's). */
  readonly reason: string;
  /** Extra headers of the answer (e.g. Allow). */
  readonly headers: Record<string, string>;

  constructor(
    code: ProxyErrorCode,
    message: string,
    options: { status?: number; headers?: Record<string, string>; reason?: string } = {},
  ) {
    this.code = code;
    this.message = message;
    this.reason = options.reason ?? message;
    this.status = options.status ?? (code === 'SITE_REFUSED' ? 403 : STATUS[code]);
    this.headers = options.headers ?? {};
  }
}

/** The failure as an answer: JSON `{"code","message"}`, cached nowhere. */
export function failureAnswer(failure: ProxyFailure, cors: Record<string, string>): Answer {
  const body: ProxyErrorBody = { code: failure.code, message: failure.message };
  return {
    status: failure.status,
    text: JSON.stringify(body),
    headers: {
      ...cors,
      ...failure.headers,
      'content-type': 'application/json; charset=utf-8',
      'cache-control': 'no-store',
      'x-content-type-options': 'nosniff',
    },
  };
}
