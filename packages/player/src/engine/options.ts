import type { BufferLike } from './bytes.ts';
import { LicenseAuthError } from './errors.ts';
import type { RenewalOptions } from './renewal.ts';
import { DEFAULT_RETRY, type RetryPolicy } from './retry.ts';
import type { TokenFetcher } from './site-client.ts';

/** Where the FairPlay certificate comes from: a URL to load it from, or the certificate itself. */
export interface FairPlayOptions {
  /** Where the player loads the certificate from; binary or base64 answers are both accepted. */
  certificateUrl?: string;
  /** The certificate itself: DER bytes or base64 text. */
  certificate?: BufferLike | string;
}

/**
 * What the site's endpoint needs of an axios instance: an app that uses axios passes its own (the
 * package never imports axios, so an app without it bundles none of it).
 */
export interface AxiosLike {
  /** axios's `post`: the token request, with the page's cookies (`withCredentials`). */
  post(
    url: string,
    data: string,
    config: {
      withCredentials: boolean;
      responseType: 'text';
      transformResponse: (data: unknown) => unknown;
      headers: Record<string, string>;
      validateStatus: () => boolean;
      signal: AbortSignal;
    },
  ): Promise<{ status: number; data: unknown }>;
}

/** `fetch`, or a function with its signature (the page's is used when none is given). */
export type FetchFunction = (input: string, init: RequestInit) => Promise<Response>;

/** The options every adapter takes; each adds `getContentId` with its player's context. */
export interface EngineOptions {
  /**
   * The cid of the content being played, for loads the app does not name with `load(contentId)`
   * (a single asset needs nothing else).
   */
  contentId?: string;
  /** Token mode: the site's token endpoint (`POST` JSON `{"cid","drm_type"}` with cookies, text answer). */
  tokenUrl?: string;
  /** Token mode: fetch the token yourself. */
  getToken?: TokenFetcher;
  /** Gateway mode: the site's custom data endpoint (same protocol as `tokenUrl`). */
  customDataUrl?: string;
  /** Gateway mode: fetch the custom data yourself. */
  getCustomData?: TokenFetcher;
  /** License server: one URL for Widevine, PlayReady and FairPlay, or a map per key system. */
  licenseServer?: string | Readonly<Record<string, string>>;
  /**
   * Proxy mode: the site's license proxy (site-kit's `createLicenseProxy`), instead of a token
   * source and `licenseServer`. No token is fetched and no token header is sent: each license
   * request goes to `<licenseProxy>?drmType=<widevine|playready|fairplay|...>&cid=<cid>` with the
   * page's cookies, and the proxy adds the token. `fairplay: {}` / `widevine: {}` (no certificate,
   * no URL) load that certificate from the proxy (`GET <licenseProxy>?drmType=fairplay`).
   */
  licenseProxy?: string;
  /**
   * Request header that carries the token or custom data: the name the license service's
   * integration guide gives. Required unless every license server is local (`localhost`,
   * `127.x.x.x`, `[::1]`), where the emulator's default `x-drm-custom-data` is used.
   */
  header?: string;
  /**
   * Service codes a fresh token can fix: such a refusal fetches one fresh token and sends the
   * license request once more. Default `['7011']` (the token's timestamp is outside the validity
   * window, on either side: expired, or from the future).
   */
  freshTokenCodes?: ReadonlyArray<string | number>;
  /** Key system (or key system prefix) to drm_type, over the built-in map. */
  drmTypes?: Readonly<Record<string, string>>;
  fairplay?: FairPlayOptions;
  /**
   * The Widevine service certificate (the service's `widevineCert.do`, which its samples load):
   * the CDM encrypts its license requests with it. DER or base64, given or loaded from a URL.
   */
  widevine?: FairPlayOptions;
  /** Deadline for getting one token, retries included. Default 10 000 ms. */
  tokenTimeoutMs?: number;
  /**
   * Retry of `tokenUrl`/`customDataUrl` fetches (and of license requests an adapter sends itself):
   * a load's first token is tried on within `windowMs` of waits, a renewal's or key rotation's
   * (every later license request of the load) within `renewalWindowMs`; a 4xx the site answers
   * (401, 403, ...) is final at once, and the end of the load stops the retries.
   */
  retry?: Partial<RetryPolicy>;
  /**
   * Token validity, counted from the start of its fetch. Default 60 000 ms (the main spec's 60 s;
   * the service's current window is 600 s, adjustable per site: 60 s is the safe side).
   */
  tokenLifetimeMs?: number;
  /**
   * The margin: a token is reused (key rotation, a second period, a retry; never for a renewal) only while
   * this much of its life is left, else a fresh one is fetched. Default 20 000 ms.
   */
  tokenMinRemainingMs?: number;
  /** Prefetch the token when the player starts loading. Default true. */
  autoPrefetch?: boolean;
  /** The app's axios instance for the site's endpoint (interceptors, base URL), instead of `fetch`. */
  axios?: AxiosLike;
  /**
   * `fetch` for the site's endpoint and for the license requests the hls.js, dash.js and video.js
   * adapters send themselves. Default: the page's `fetch`.
   */
  fetch?: FetchFunction;
  /** Deadline of one license request an adapter sends itself, retries included. Default 20 000 ms. */
  licenseTimeoutMs?: number;
  /**
   * License renewal of each load (the service counts a stream while its license is renewed):
   * `intervalSec`, else the `x-renewal-interval` header of the site's token answer; with neither,
   * nothing is renewed. Same option on every adapter.
   */
  renewal?: RenewalOptions;
  /** Monotonic clock in ms. Default `performance.now`. */
  now?: () => number;
}

export interface ResolvedOptions<GetContentId = unknown> {
  contentId: string | undefined;
  getContentId: GetContentId | undefined;
  kind: 'token' | 'custom data';
  url: string | undefined;
  fetcher: TokenFetcher | undefined;
  licenseServer: EngineOptions['licenseServer'];
  licenseProxy: string | undefined;
  header: string;
  /** `header` was given (else the local default is used, for local license servers only). */
  headerGiven: boolean;
  freshTokenCodes: readonly string[];
  sessionRetries: number;
  drmTypes: Readonly<Record<string, string>>;
  fairplay: FairPlayOptions | undefined;
  widevine: FairPlayOptions | undefined;
  tokenTimeoutMs: number;
  licenseTimeoutMs: number;
  retry: RetryPolicy;
  tokenLifetimeMs: number;
  tokenMinRemainingMs: number;
  autoPrefetch: boolean;
  axios: AxiosLike | undefined;
  fetch: FetchFunction | undefined;
  renewal: RenewalOptions | undefined;
  now: () => number;
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

// What each option must be, by its type letter: s string, f function, n number >= 0, p number
// > 0, b boolean, m map of key system to string, o object, a axios instance (a function), l list
// of codes, u a string or a map of key system to string. A dotted name is a member of an option.
const RULES =
  'contentId:s tokenUrl:s customDataUrl:s licenseProxy:s header:s getContentId:f getToken:f getCustomData:f now:f ' +
  'fetch:f tokenTimeoutMs:n licenseTimeoutMs:n tokenLifetimeMs:n tokenMinRemainingMs:n ' +
  'sessionRetries:n autoPrefetch:b drmTypes:m fairplay:o widevine:o retry:o axios:a freshTokenCodes:l renewal:o ' +
  'licenseServer:u fairplay.certificateUrl:s widevine.certificateUrl:s renewal.pausedLimitSec:n ' +
  'renewal.hiddenLimitSec:n renewal.intervalSec:p retry.maxAttempts:n retry.baseDelayMs:n ' +
  'retry.backoffFactor:n retry.maxDelayMs:n retry.windowMs:n retry.renewalWindowMs:n';
const MUST: Readonly<Record<string, string>> = {
  s: 'a non-empty string',
  f: 'a function',
  n: 'a number >= 0',
  p: 'a number of seconds > 0',
  b: 'a boolean',
  m: 'a map of key system to string',
  o: 'an object',
  a: 'an axios instance',
  l: 'a list of service codes',
};

function broken(rule: string, v: unknown): boolean {
  if (rule === 's') return typeof v !== 'string' || !v.trim();
  if (rule === 'n' || rule === 'p') {
    return typeof v !== 'number' || !(v < Infinity && (rule === 'n' ? v >= 0 : v > 0));
  }
  if (rule === 'f' || rule === 'a') return typeof v !== 'function';
  if (rule === 'b') return typeof v !== 'boolean';
  if (rule === 'l') return !Array.isArray(v) || v.some((c) => !/^\d+$/.test(String(c)));
  return !isObject(v) || (rule === 'm' && Object.values(v).some((s) => broken('s', s)));
}

/** Where the token comes from: exactly one of them is given. */
const SOURCES = ['tokenUrl', 'getToken', 'customDataUrl', 'getCustomData', 'licenseProxy'];

/** The `INVALID_OPTIONS` error of `attachLicenseAuth`, naming the broken rules. */
export const invalidOptions = (rules: string) =>
  new LicenseAuthError('INVALID_OPTIONS', `attachLicenseAuth(player, options): ${rules}.`);

/**
 * Checks every rule and reports all broken ones in one `INVALID_OPTIONS` error; `more` adds an
 * adapter's own rules (broken ones as sentences).
 */
export function resolveOptions<GetContentId = unknown>(
  input: unknown,
  more: (o: Record<string, unknown>) => Array<string | false> = () => [],
): ResolvedOptions<GetContentId> {
  const o = (isObject(input) ? input : {}) as EngineOptions & Record<string, unknown>;
  const issues: string[] = isObject(input) ? [] : ['options must be an object'];
  for (const spec of RULES.split(' ')) {
    const [name = '', letter = ''] = spec.split(':');
    const v = name
      .split('.')
      .reduce<unknown>((parent, key) => (parent as Record<string, unknown> | null)?.[key], o);
    const rule = letter === 'u' ? (typeof v === 'string' ? 's' : 'm') : letter;
    if (v !== undefined && broken(rule, v)) issues.push(`${name} must be ${MUST[rule]}`);
  }
  // The proxy gets the token and knows the license server itself: nothing else may name them.
  const sources = [...SOURCES, ...(o.licenseProxy ? ['licenseServer', 'header'] : [])].filter(
    (k) => o[k] !== undefined,
  );
  if (sources.length !== 1) {
    issues.push(
      sources.length === 0
        ? `one of ${SOURCES.join(', ')} is required`
        : `give only one of ${sources.join(', ')}`,
    );
  }
  if (o.axios !== undefined && o.fetch !== undefined) issues.push('give only one of axios, fetch');
  if (typeof o.header === 'string' && !/^[!#$%&'*+.^_`|~\w-]+$/.test(o.header)) {
    issues.push('header must be an HTTP header name');
  }
  const given: Partial<ResolvedOptions> = Object.fromEntries(
    Object.entries(o).filter(([, v]) => v !== undefined),
  );
  const resolved = {
    header: 'x-drm-custom-data',
    headerGiven: o.header !== undefined,
    sessionRetries: 1,
    drmTypes: {},
    tokenTimeoutMs: 10_000,
    licenseTimeoutMs: 20_000,
    tokenLifetimeMs: 60_000,
    tokenMinRemainingMs: 20_000,
    autoPrefetch: true,
    now: () => performance.now(),
    ...given,
    // Checked above: a given source is a non-empty string or a function.
    kind: (o.customDataUrl ?? o.getCustomData) ? 'custom data' : 'token',
    url: o.tokenUrl ?? o.customDataUrl,
    fetcher: o.getToken ?? o.getCustomData,
    retry: { ...DEFAULT_RETRY, ...o.retry },
  } as ResolvedOptions<GetContentId>;
  if (resolved.tokenMinRemainingMs >= resolved.tokenLifetimeMs) {
    issues.push('tokenMinRemainingMs must be less than tokenLifetimeMs');
  }
  for (const issue of more(o)) if (issue) issues.push(issue);
  if (issues.length > 0) throw invalidOptions(issues.join('; '));
  resolved.freshTokenCodes = (o.freshTokenCodes ?? [7011]).map(String);
  return resolved;
}
