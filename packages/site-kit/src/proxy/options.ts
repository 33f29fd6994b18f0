import * as z from 'zod';
import { SiteKitError } from '../errors.ts';
import { CUSTOM_DATA_HEADER } from '../http/cors.ts';
import { corsOptionFields } from '../http/cors-schema.ts';
import type { SiteRefusal } from '../http/site-endpoint.ts';
import type { SiteRateLimit } from '../rate-limit/verdict.ts';
import type { TokenGrant } from '../http/token-handler.ts';
import { describeIssues } from '../schemas/issues.ts';
import { mustBe } from '../schemas/must-be.ts';
import type { SiteCredentials } from '../token/keys.ts';
import type { ProxyCorsOptions } from './cors.ts';
import type { ProxyDrmType } from './drm.ts';
import type { LicenseProxyEvent } from './events.ts';

/** What the player's request asks for: the DRM and the content, from the proxy URL's query. */
export interface ProxyAsk {
  /** A DRM of the token, or `ClearKey` (whose token keeps the default drm_type). */
  drmType: ProxyDrmType;
  cid: string;
}

/** The site's decision: a grant (the token's user and policy; v2 by default) or a refusal. */
export type ProxyDecision = TokenGrant | SiteRefusal;

export interface LicenseProxyOptions extends SiteCredentials {
  /**
   * The license service's license URL, e.g. https://license.example/ri/licenseManager.do. Fixed
   * here: nothing in a request changes where the proxy sends it.
   */
  licenseUrl: string;
  /**
   * Where certificate requests (GET) go: default the service's paths beside `licenseUrl`
   * (widevineCert.do, fpsKeyManager.do) with `siteId`; `false` turns them off.
   */
  certificateUrls?: { widevine?: string; fairplay?: string } | false;
  /**
   * The ClearKey license URL, which the proxy GETs with `siteId` and `cid` (wire addendum 7);
   * default `clearkey/licenseManager.do` beside `licenseUrl`.
   */
  clearKeyUrl?: string;
  /** The header the license service reads the token from; default "x-drm-custom-data". */
  header?: string;
  /** Decides from the player's request (cookies, session) and what it asks for. */
  authorize: (request: Request, asked: ProxyAsk) => ProxyDecision | Promise<ProxyDecision>;
  /**
   * Request headers passed on to the service when present (lower case), e.g. the service's
   * client-meta header. Default ["user-agent"]: the service's documents do not name the client-meta
   * header (a guessed name would forward nothing or the wrong thing), so a site lists it by the name
   * its players send. Cookie, Authorization and the token header can never be listed.
   */
  forwardHeaders?: string[];
  /** Off unless given: browser pages on other origins are then refused. */
  cors?: ProxyCorsOptions;
  /** Largest license request body; default 64 KiB. */
  maxBodyBytes?: number;
  /** Largest answer of the service; default 1 MiB. */
  maxAnswerBytes?: number;
  timeouts?: {
    /** The whole exchange with the service, answer read included; default 10 000 ms. */
    upstreamMs?: number;
    /** The site's `authorize`; default 5 000 ms. */
    authorizeMs?: number;
  };
  /** Answer a `json`-format license (`{"license",...}`) as the license itself; default false. */
  unwrapJson?: boolean;
  /** Allow an http:// license URL to a host other than loopback; default false (https only). */
  allowHttp?: boolean;
  /** The fetch to call the service with (a Workers service binding, a test double); default fetch. */
  fetch?: (request: Request) => Promise<Response>;
  /**
   * Off unless given: `createRateLimit(...)` counts each client address before the body is read
   * and each user once `authorize` names one (RATE_LIMITED, 429 with Retry-After, past a budget).
   */
  rateLimit?: SiteRateLimit;
  /** Every step, for logs and metrics; never a token. */
  onEvent?: (event: LicenseProxyEvent) => void;
  /**
   * Receives what the site's code (`authorize`) or the proxy itself threw, as thrown: it may hold
   * anything (a database URL with its password), so `onEvent` gets only its class. `asked` is
   * undefined for an error of the proxy outside a decision.
   */
  onError?: (error: unknown, asked: ProxyAsk | undefined) => void;
}

/** The options checked once, when the proxy is created. */
export interface ProxyConfig {
  licenseUrl: URL;
  /** With `siteId` in its query; the proxy adds `cid`. */
  clearKeyUrl: URL;
  certificateUrls: { Widevine?: string; FairPlay?: string };
  header: string;
  forwardHeaders: string[];
  maxBodyBytes: number;
  maxAnswerBytes: number;
  upstreamMs: number;
  authorizeMs: number;
  unwrapJson: boolean;
}

// Never passed on, whatever the site lists: the user's credentials, the token's own header (the
// proxy sets it), and what belongs to the connection or the body.
const NEVER_FORWARDED = [
  'cookie',
  'authorization',
  'proxy-authorization',
  'host',
  'content-length',
  'content-type',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'upgrade',
  'te',
  'trailer',
  'origin',
  'referer',
];

const positiveInt = (what: string) =>
  z
    .number({ error: mustBe(what) })
    .int('must be a whole number')
    .positive('must be more than 0');
const headerName = z
  .string({ error: mustBe('a header name') })
  .regex(/^[A-Za-z0-9-]+$/, 'must be a header name (letters, digits, -)');

const optionsSchema = z.object({
  licenseUrl: z.string({ error: mustBe('an absolute https:// URL') }),
  clearKeyUrl: z.string({ error: mustBe('an absolute https:// URL') }).optional(),
  header: headerName.optional(),
  forwardHeaders: z.array(headerName, { error: mustBe('an array of header names') }).optional(),
  maxBodyBytes: positiveInt('a number of bytes').optional(),
  maxAnswerBytes: positiveInt('a number of bytes').optional(),
  timeouts: z
    .strictObject(
      {
        upstreamMs: positiveInt('a number of milliseconds').optional(),
        authorizeMs: positiveInt('a number of milliseconds').optional(),
      },
      { error: mustBe('an object') },
    )
    .optional(),
  unwrapJson: z.boolean({ error: mustBe('true or false') }).optional(),
  certificateUrls: z
    .union(
      [
        z.literal(false),
        z.strictObject({
          widevine: z.string({ error: mustBe('a URL') }).optional(),
          fairplay: z.string({ error: mustBe('a URL') }).optional(),
        }),
      ],
      { error: mustBe('false or an object {"widevine","fairplay"}') },
    )
    .optional(),
  allowHttp: z.boolean({ error: mustBe('true or false') }).optional(),
  cors: z
    .strictObject(
      {
        ...corsOptionFields(
          'must be an origin: scheme://host[:port], no path, no trailing slash, no *',
        ),
      },
      { error: mustBe('an object') },
    )
    .optional(),
});

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

/** Checks the options once; every mistake is an INVALID_INPUT naming the option. */
export function checkProxyOptions(options: LicenseProxyOptions): ProxyConfig {
  const parsed = optionsSchema.safeParse(options);
  if (!parsed.success) throw new SiteKitError('INVALID_INPUT', describeIssues(parsed.error, ''));
  if (typeof options.authorize !== 'function') {
    throw new SiteKitError(
      'INVALID_INPUT',
      'authorize: must be a function (request, { drmType, cid }) => decision.',
    );
  }
  if (options.onError !== undefined && typeof options.onError !== 'function') {
    throw new SiteKitError(
      'INVALID_INPUT',
      'onError: must be a function (error, { drmType, cid }) => void.',
    );
  }
  const data = parsed.data;
  const licenseUrl = upstreamUrl(data.licenseUrl, 'licenseUrl', data.allowHttp === true);
  const header = (data.header ?? CUSTOM_DATA_HEADER).toLowerCase();
  const forwardHeaders = (data.forwardHeaders ?? ['user-agent']).map((h) => h.toLowerCase());
  const banned = forwardHeaders.find((h) => NEVER_FORWARDED.includes(h) || h === header);
  if (banned !== undefined) {
    throw new SiteKitError(
      'INVALID_INPUT',
      `forwardHeaders: "${banned}" is never passed on to the license service (the user's credentials, the token header and connection headers stay with the proxy).`,
    );
  }
  const clearKeyUrl =
    data.clearKeyUrl === undefined
      ? new URL('clearkey/licenseManager.do', licenseUrl)
      : upstreamUrl(data.clearKeyUrl, 'clearKeyUrl', data.allowHttp === true);
  clearKeyUrl.search = '';
  clearKeyUrl.searchParams.set('siteId', options.siteId);
  return {
    licenseUrl,
    clearKeyUrl,
    certificateUrls: certificateUrls(options, licenseUrl, data.allowHttp === true),
    header,
    forwardHeaders,
    maxBodyBytes: data.maxBodyBytes ?? 64 * 1024,
    maxAnswerBytes: data.maxAnswerBytes ?? 1024 * 1024,
    upstreamMs: data.timeouts?.upstreamMs ?? 10_000,
    authorizeMs: data.timeouts?.authorizeMs ?? 5_000,
    unwrapJson: data.unwrapJson ?? false,
  };
}

function upstreamUrl(text: string, option: string, allowHttp: boolean): URL {
  if (!URL.canParse(text)) {
    throw new SiteKitError(
      'INVALID_INPUT',
      `${option}: must be an absolute https:// URL such as https://license.example/ri/licenseManager.do.`,
    );
  }
  const url = new URL(text);
  const secure = url.protocol === 'https:';
  const local = url.protocol === 'http:' && (allowHttp || LOOPBACK.has(url.hostname));
  if (!secure && !local) {
    throw new SiteKitError(
      'INVALID_INPUT',
      `${option}: must be https:// (http:// only to localhost, or with allowHttp: true), got ${url.protocol}//${url.host}.`,
    );
  }
  if (url.username !== '' || url.password !== '') {
    throw new SiteKitError('INVALID_INPUT', `${option}: must not hold a user name or password.`);
  }
  url.hash = '';
  return url;
}

function certificateUrls(
  options: LicenseProxyOptions,
  licenseUrl: URL,
  allowHttp: boolean,
): ProxyConfig['certificateUrls'] {
  const given = options.certificateUrls;
  if (given === false) return {};
  const withSite = (path: string) => {
    const url = new URL(path, licenseUrl);
    url.search = '';
    url.searchParams.set('siteId', options.siteId);
    return url.href;
  };
  return {
    Widevine:
      given?.widevine === undefined
        ? withSite('widevineCert.do')
        : upstreamUrl(given.widevine, 'certificateUrls.widevine', allowHttp).href,
    FairPlay:
      given?.fairplay === undefined
        ? withSite('fpsKeyManager.do')
        : upstreamUrl(given.fairplay, 'certificateUrls.fairplay', allowHttp).href,
  };
}
