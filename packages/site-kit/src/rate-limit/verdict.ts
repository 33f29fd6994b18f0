// The endpoints' side of rate limits, without the counting library: an endpoint that is given no
// rate limit loads nothing more.

/** A rate-limit decision: the headers go on the answer either way. */
export type RateVerdict =
  | { ok: true; headers: Record<string, string> }
  | { ok: false; status: 429 | 503; message: string; headers: Record<string, string> };

/** What the token, custom-data and proxy endpoints call: one request of each budget. */
export interface SiteRateLimit {
  /** Before anything else of the request. `peer` is the socket's address when the adapter has it. */
  byAddress(request: () => Request, peer: string | undefined): Promise<RateVerdict>;
  /** Once the site's decision names the user. */
  byUser(userId: string): Promise<RateVerdict>;
}

/** The headers of both verdicts on one answer: the draft's fields are lists. */
export function rateHeaders(
  base: Record<string, string>,
  verdict: RateVerdict,
): Record<string, string> {
  const out = { ...base };
  for (const [name, value] of Object.entries(verdict.headers)) {
    out[name] =
      name === 'retry-after' || out[name] === undefined ? value : `${out[name]}, ${value}`;
  }
  return out;
}
