import { LicenseAuthError, TokenFetchError } from './errors.ts';
import type { DrmType } from './key-systems.ts';
import type { AxiosLike, FetchFunction } from './options.ts';
import { builderErrorOf, readJsonObject } from './service-error.ts';
import { retryWait, sleep, withDeadline, type RetryPolicy } from './retry.ts';

/** What a {@link TokenFetcher} is asked for: the content, the DRM, and a signal to abort with. */
export interface TokenParams {
  cid: string;
  drmType: DrmType;
  /** Aborted on timeout, `detach()` and `player.unload()`: pass it on to your own fetch. */
  signal: AbortSignal;
}

/**
 * Fetches a token (or custom data) yourself, instead of `tokenUrl` / `customDataUrl`; resolves to
 * the text as the site issued it.
 */
export type TokenFetcher = (params: TokenParams) => Promise<string>;

export type SiteAnswer = 'token' | 'custom data';

/** A {@link TokenFetcher} the engine may give a retry window (the site's endpoint takes it). */
export type WindowedFetcher = (params: TokenParams, windowMs?: number) => Promise<string>;

/**
 * One POST to the site: JSON body, the user's cookies, the answer as text (and its
 * `x-renewal-interval` header, where the site sends it).
 */
export type SitePost = (
  url: string,
  json: string,
  signal: AbortSignal,
) => Promise<{ status: number; text: string; renewalInterval?: unknown }>;

/** The site's renewal interval for its tokens' licenses (integer seconds), a CORS-exposed header. */
export const RENEWAL_INTERVAL_HEADER = 'x-renewal-interval';

/** The header's seconds, when it holds a whole number above 0. */
export const renewalSeconds = (value: unknown): number | undefined =>
  /^\s*[1-9]\d*\s*$/.test(String(value)) ? Number(value) : undefined;

const SITE_HEADERS = { Accept: 'text/plain', 'Content-Type': 'application/json' };

/** The app's axios instance (its interceptors, base URL): the package never loads axios itself. */
export const axiosPost =
  (http: AxiosLike): SitePost =>
  async (url, json, signal) => {
    const res = await http.post(url, json, {
      withCredentials: true,
      responseType: 'text',
      transformResponse: (data: unknown) => data,
      headers: SITE_HEADERS,
      validateStatus: () => true,
      signal,
    });
    return {
      status: res.status,
      text: typeof res.data === 'string' ? res.data : '',
      renewalInterval: (res as { headers?: Record<string, unknown> }).headers?.[
        RENEWAL_INTERVAL_HEADER
      ],
    };
  };

/** The app's `fetch`, else the page's as it is at the time of the request. */
export const fetchPost =
  (given?: FetchFunction): SitePost =>
  async (url, json, signal) => {
    const res = await (given ?? fetch)(url, {
      method: 'POST',
      body: json,
      credentials: 'include',
      headers: SITE_HEADERS,
      signal,
    });
    return {
      status: res.status,
      text: await res.text(),
      renewalInterval: res.headers?.get(RENEWAL_INTERVAL_HEADER),
    };
  };

/**
 * The default protocol (README decisions): `POST <url>` with JSON `{"cid","drm_type"}` and the user's
 * cookies; the site answers the token (or custom data) as text/plain.
 */
export function createSiteFetcher(
  post: SitePost,
  url: string,
  what: SiteAnswer,
  retry: RetryPolicy,
  onRenewalInterval?: (header: unknown) => void,
): WindowedFetcher {
  const once = async ({ cid, drmType, signal }: TokenParams): Promise<string> => {
    let res;
    try {
      res = await post(url, JSON.stringify({ cid, drm_type: drmType }), signal);
    } catch (error) {
      if (signal.aborted) throw signal.reason;
      throw siteError({ url, reason: messageOf(error) }, what, cid, error);
    }
    const text = res.text.trim();
    // An empty 2xx answer is reported by withTokenDeadline, which checks every source.
    if (res.status >= 200 && res.status < 300) {
      // A sign-in page or an app's fallback page is not a token (base64 never starts with "<"):
      // sent on, it would only come back from the license service as a malformed token.
      if (text.startsWith('<')) {
        throw siteError(
          { url, status: res.status, reason: `an HTML page, not a ${what}` },
          what,
          cid,
        );
      }
      onRenewalInterval?.(res.renewalInterval);
      return text;
    }
    throw siteError({ url, status: res.status, reason: reasonOf(text) }, what, cid);
  };

  return async (params, windowMs) => {
    for (let failures = 1, waited = 0; ; failures++) {
      try {
        return await once(params);
      } catch (error) {
        const wait =
          error instanceof TokenFetchError
            ? retryWait(retry, failures, error.status, waited, windowMs)
            : undefined;
        if (wait === undefined) throw error;
        waited += wait;
        await sleep(wait, params.signal);
      }
    }
  };
}

/**
 * Runs `fetcher` under the token deadline (`timeoutMs`, plus `extraMs` for a renewal's window) and
 * the caller's signal, and holds every source to the same answer: a non-empty string, failures as
 * this package's errors.
 */
export const withTokenDeadline =
  (
    fetcher: WindowedFetcher,
    source: string,
    what: SiteAnswer,
    timeoutMs: number,
  ): ((
    cid: string,
    drmType: DrmType,
    signal: AbortSignal,
    windowMs?: number,
    extraMs?: number,
  ) => Promise<string>) =>
  (cid, drmType, parent, windowMs, extraMs = 0) =>
    withDeadline(
      timeoutMs + extraMs,
      () =>
        new TokenFetchError(
          'TOKEN_TIMEOUT',
          { url: source },
          `No ${what} from ${source} within ${timeoutMs + extraMs} ms for cid "${cid}" (${drmType}): raise tokenTimeoutMs or check the site.`,
        ),
      parent,
      async (signal) => {
        let value: unknown;
        try {
          value = await fetcher({ cid, drmType, signal }, windowMs);
        } catch (error) {
          if (error instanceof LicenseAuthError) throw error;
          throw siteError({ url: source, reason: messageOf(error) }, what, cid, error);
        }
        // A site that hands on its token builder's error with a 2xx status has no token for us.
        const builder = typeof value === 'string' ? builderErrorOf(readJsonObject(value)) : null;
        if (builder) {
          const said = builder.message ? `: ${builder.message}` : '';
          throw siteError(
            { url: source, reason: `its token builder failed with ${builder.code}${said}` },
            what,
            cid,
          );
        }
        if (typeof value === 'string' && value.trim()) return value.trim();
        throw siteError({ url: source, reason: `an empty ${what}` }, what, cid);
      },
    );

function siteError(
  info: { url: string; status?: number; reason?: string },
  what: SiteAnswer,
  cid: string,
  cause?: unknown,
): TokenFetchError {
  const { url, status, reason } = info;
  const said = reason ? ` (${reason})` : '';
  const message =
    status === undefined
      ? `No ${what} from ${url}${said}: check the URL, that the site is up, and its CORS rules.`
      : status === 401 || status === 403
        ? `${url} refused a ${what} for cid "${cid}" with HTTP ${status}${said}: the user must be signed in and allowed to play it.`
        : `${url} answered HTTP ${status}${said} instead of a ${what} for cid "${cid}": check the URL and the site's logs.`;
  return new TokenFetchError('TOKEN_FETCH_FAILED', info, message, { cause });
}

/** The site's reason from a JSON error (`message`/`error`) or the start of its text. */
function reasonOf(text: string): string | undefined {
  if (!text) return undefined;
  // Not JSON, or JSON without one: the text itself is the reason.
  const body = readJsonObject(text);
  const said = body?.['message'] ?? body?.['error'] ?? body?.['reason'];
  return (typeof said === 'string' ? said : text).slice(0, 200);
}

const messageOf = (error: unknown): string =>
  error instanceof Error ? error.message : String(error);
