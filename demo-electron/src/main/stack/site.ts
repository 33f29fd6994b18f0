import {
  createCustomDataHandler,
  createGatewayHandler,
  createTokenHandler,
  type GatewayDecision,
  type SiteRefusal,
  type TokenPolicy,
  type WebHandler,
  convertPolicyToV2,
} from '@multidrm/site-kit';
import { createLicenseProxy, type LicenseProxyEvent } from '@multidrm/site-kit/proxy';
import type { StreamLimit } from '../../shared/contract.ts';
import { isEntitled } from './catalogue.ts';

export interface SiteCredentials {
  siteId: string;
  siteKey: string;
  accessKey: string;
}

/**
 * What the site knows about the current viewer: who is signed in and what it grants them. The page's
 * `preparePlay` call sets it, standing in for a session and the site's own business rules.
 */
export interface SiteSession {
  userId: string | undefined;
  policy: TokenPolicy;
  /** The screens control: the stream limit and renewal interval of the user's tokens. */
  streams?: StreamLimit | undefined;
}

export interface DemoSiteOptions {
  /** The site as the emulator knows it: token mode and gateway JSON. */
  json: SiteCredentials;
  /** The same site registered a second time with an XML gateway (the old specification). */
  xml: SiteCredentials;
  session: () => SiteSession;
  /** Credentials for tokens when the real service is the target, else undefined. */
  realCredentials: () => SiteCredentials | undefined;
  /** The site's license proxy (proxy mode), for the site as the emulator knows it (`json`). */
  proxy: {
    /** The emulator's license URL, once it runs. */
    licenseUrl: () => string | undefined;
    /** The header the emulator reads the token from. */
    header: string;
    /**
     * The page's origin, which the guard in front of the site has checked on every POST: an http
     * one goes into the proxy's CORS allow-list; the app's own scheme (Electron) is no web origin
     * the list can hold, so its Origin header is taken off instead (see proxyRequest).
     */
    pageOrigin: () => string;
    onEvent: (event: LicenseProxyEvent) => void;
  };
}

/** The endpoints a site built with site-kit offers, under the paths the plan hands to the player. */
export const SITE_PATHS = {
  token: '/token',
  customDataJson: '/custom-data',
  customDataXml: '/custom-data-xml',
  gatewayJson: '/gateway',
  gatewayXml: '/gateway-xml',
  /** Proxy mode: `POST ?drmType=&cid=` a license request, `GET ?drmType=` a certificate. */
  licenseProxy: '/license-proxy',
} as const;

function refuse(userId: string | undefined, cid: string): SiteRefusal {
  return userId === undefined
    ? { allow: false, status: 401, reason: 'Sign in to play this title.' }
    : {
        allow: false,
        status: 403,
        reason: `${userId} is not entitled to ${cid}: only members (member-…) play it.`,
      };
}

/** One web-standard handler for the site's routes; undefined for any other path. */
export function createDemoSite(
  options: DemoSiteOptions,
): (request: Request) => Promise<Response> | undefined {
  const { session } = options;

  // The token's grant, the same in token mode (the token endpoint) and proxy mode (the proxy makes
  // the token itself): the session's user, if entitled, with the policy the page set.
  const grant = (cid: string) => {
    const { userId, policy, streams } = session();
    if (userId === undefined || !isEntitled(userId, cid)) return refuse(userId, cid);
    // A v2 token (the service's current format); the page's controls are the gateway's (v1)
    // shape, which the conversion maps member by member.
    const v2 = convertPolicyToV2(policy).policy;
    if (streams === undefined) return { allow: true as const, userId, policy: v2 };
    // The screens control: only v2 says how many streams and how often they renew; the token
    // endpoint answers the interval as x-renewal-interval, which the players renew by.
    const playback_policy = {
      ...v2.playback_policy,
      max_stream_per_user: streams.maxPerUser,
      renewal_duration: streams.renewalSeconds,
    };
    return { allow: true as const, userId, policy: { ...v2, playback_policy } };
  };

  const tokenHandlers = new Map<string, WebHandler>();
  const tokenHandlerFor = (credentials: SiteCredentials): WebHandler => {
    const key = JSON.stringify(credentials);
    let handler = tokenHandlers.get(key);
    if (handler === undefined) {
      handler = createTokenHandler({
        ...credentials,
        authorize: (_request, { cid }) => grant(cid),
      });
      tokenHandlers.set(key, handler);
    }
    return handler;
  };

  // Made on its first request: it forwards to the emulator, which starts after the site.
  let licenseProxy: WebHandler | undefined;
  const proxyFor = (licenseUrl: string): WebHandler => {
    const origin = options.proxy.pageOrigin();
    licenseProxy ??= createLicenseProxy({
      ...options.json,
      licenseUrl,
      header: options.proxy.header,
      // The site's own session decides: the guard in front of every site route admitted only the
      // page (its session cookie and Origin in the web mode, the app's scheme in Electron).
      authorize: (_request, { cid }) => grant(cid),
      ...(isWebOrigin(origin) ? { cors: { origins: [origin] } } : {}),
      onEvent: options.proxy.onEvent,
    });
    return licenseProxy;
  };
  const proxyRequest = (request: Request): Promise<Response> => {
    const licenseUrl = options.proxy.licenseUrl();
    if (licenseUrl === undefined) return Promise.resolve(starting());
    const origin = options.proxy.pageOrigin();
    // Electron: the scheme handler let through only the app's own Origin; as that is no web
    // origin, the proxy's CORS (which refuses a page's unlisted origin) is told nothing of it.
    const own = !isWebOrigin(origin) && request.headers.get('origin') === origin;
    return proxyFor(licenseUrl)(own ? withoutOrigin(request) : request);
  };

  // In gateway mode the custom data only names the user; the gateway decides.
  const customData = (credentials: SiteCredentials) =>
    createCustomDataHandler({
      siteId: credentials.siteId,
      siteKey: credentials.siteKey,
      authorize: () => {
        const { userId } = session();
        return userId === undefined
          ? { allow: false, status: 401, reason: 'Sign in to play this title.' }
          : { allow: true, userId };
      },
    });

  const gateway = (credentials: SiteCredentials) =>
    createGatewayHandler({
      siteKey: credentials.siteKey,
      authorize: (request): GatewayDecision => {
        if (!isEntitled(request.user_id, request.cid)) {
          return {
            allow: false,
            error_code: '4031',
            error_message: `${request.user_id} is not entitled to ${request.cid}`,
          };
        }
        const { playback_policy = {}, security_policy, external_key } = session().policy;
        return {
          allow: true,
          playback_policy,
          ...(security_policy === undefined ? {} : { security_policy }),
          ...(external_key === undefined ? {} : { external_key }),
        };
      },
    });

  const routes: Record<string, WebHandler> = {
    [SITE_PATHS.customDataJson]: customData(options.json),
    [SITE_PATHS.customDataXml]: customData(options.xml),
    [SITE_PATHS.gatewayJson]: gateway(options.json),
    [SITE_PATHS.gatewayXml]: gateway(options.xml),
  };

  return (request) => {
    const { pathname } = new URL(request.url);
    if (pathname === SITE_PATHS.token) {
      return tokenHandlerFor(options.realCredentials() ?? options.json)(request);
    }
    if (pathname === SITE_PATHS.licenseProxy) return proxyRequest(request);
    return routes[pathname]?.(request);
  };
}

const isWebOrigin = (origin: string) =>
  URL.canParse(origin) && new URL(origin).origin === origin && origin !== 'null';

function withoutOrigin(request: Request): Request {
  const headers = new Headers(request.headers);
  headers.delete('origin');
  return new Request(request, { headers });
}

const starting = () =>
  new Response(JSON.stringify({ code: 'STARTING', message: 'The demo is starting.' }), {
    status: 503,
    headers: { 'content-type': 'application/json', 'cache-control': 'no-store' },
  });
