import {
  createCustomDataHandler,
  createGatewayHandler,
  createTokenHandler,
  type AnyTokenPolicy,
  type CorsOptions,
  type CustomDataHandlerOptions,
  type GatewayHandlerOptions,
  type SiteEndpointEvent,
  type TokenHandlerOptions,
} from '@multidrm/site-kit';
import { http, type HttpHandler } from 'msw';
import { originOf } from './license-service-handlers.ts';

/** Where the kit's site answers unless told otherwise. */
export const DEFAULT_SITE_BASE_URL = 'https://site.test';

/**
 * Options of {@link siteHandlers}: the site's credentials and, for each endpoint, a decision
 * (default: allow).
 */
export interface SiteHandlersOptions {
  /** The site's credentials: the same as in the license service's config. */
  site: { siteId: string; siteKey: string; accessKey: string };
  /** The site's origin; default https://site.test. */
  baseUrl?: string;
  /** The user the default decisions name; default "test-user". */
  userId?: string;
  /** The policy of the default token decision; default `{ policy_version: 2 }` (a v2 token). */
  policy?: AnyTokenPolicy;
  /** The token endpoint's decision; default: allow `userId` with `policy`. */
  authorizeToken?: TokenHandlerOptions['authorize'];
  /** The custom-data endpoint's decision; default: allow `userId`. */
  authorizeCustomData?: CustomDataHandlerOptions['authorize'];
  /** The gateway's decision; default: allow without limits. */
  authorizeGateway?: GatewayHandlerOptions['authorize'];
  /** CORS of the token and custom-data endpoints, for a player on another origin. */
  cors?: CorsOptions;
  /** Every event of the token and custom-data endpoints (never a token). */
  onEvent?: (event: SiteEndpointEvent) => void;
  /** What a decision of the token or custom-data endpoint threw, as thrown (site-kit's `onError`). */
  onError?: TokenHandlerOptions['onError'];
  /** How long those decisions may take, in ms, before the player gets 503; site-kit's default 5000. */
  authorizeTimeoutMs?: number;
  /**
   * Their CSRF guard (content type, cross-site origin), site-kit's `requestGuard`: on by default,
   * `false` turns it off, e.g. to test a player that posts another content type.
   */
  requestGuard?: TokenHandlerOptions['requestGuard'];
}

/**
 * msw request handlers for the site's endpoints (spread them into setupServer or setupWorker) and
 * their URLs.
 */
export interface SiteHandlers extends Array<HttpHandler> {
  /** POST {"cid","drm_type"}: a license token, issued by site-kit's real issuer. */
  readonly tokenUrl: string;
  /** POST {"cid","drm_type"}: gateway-mode custom data, made by site-kit. */
  readonly customDataUrl: string;
  /** The gateway the license service calls back in gateway mode: set it as the site's gatewayUrl. */
  readonly gatewayUrl: string;
}

/**
 * The site's side as msw handlers: site-kit's own token endpoint, custom-data endpoint and gateway
 * (createTokenHandler, createCustomDataHandler, createGatewayHandler), so the tokens a test's player
 * gets are real tokens that the license service checks for real.
 */
export function siteHandlers(options: SiteHandlersOptions): SiteHandlers {
  const baseUrl = originOf(options.baseUrl ?? DEFAULT_SITE_BASE_URL, 'baseUrl');
  const { site, cors, onEvent, onError, authorizeTimeoutMs, requestGuard } = options;
  const userId = options.userId ?? 'test-user';
  const policy: AnyTokenPolicy = options.policy ?? { policy_version: 2 };
  // Only what was given: site-kit checks each option it gets and has its own defaults.
  const shared = {
    ...(cors === undefined ? {} : { cors }),
    ...(onEvent ? { onEvent } : {}),
    ...(onError ? { onError } : {}),
    ...(authorizeTimeoutMs === undefined ? {} : { authorizeTimeoutMs }),
    ...(requestGuard === undefined ? {} : { requestGuard }),
  };
  const credentials = { siteId: site.siteId, siteKey: site.siteKey, accessKey: site.accessKey };
  const token = createTokenHandler({
    ...credentials,
    ...shared,
    authorize: options.authorizeToken ?? (() => ({ allow: true, userId, policy })),
  });
  const customData = createCustomDataHandler({
    siteId: site.siteId,
    siteKey: site.siteKey,
    ...shared,
    authorize: options.authorizeCustomData ?? (() => ({ allow: true, userId })),
  });
  const gateway = createGatewayHandler({
    siteKey: site.siteKey,
    authorize:
      options.authorizeGateway ??
      (() => ({ allow: true, playback_policy: { limit: false, persistent: false } })),
  });
  const urls = {
    tokenUrl: `${baseUrl}/drm/token`,
    customDataUrl: `${baseUrl}/drm/custom-data`,
    gatewayUrl: `${baseUrl}/drm/gateway`,
  };
  return Object.assign(
    [
      http.all(urls.tokenUrl, ({ request }) => token(request)),
      http.all(urls.customDataUrl, ({ request }) => customData(request)),
      http.all(urls.gatewayUrl, ({ request }) => gateway(request)),
    ],
    urls,
  );
}
