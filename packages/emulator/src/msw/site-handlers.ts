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
  /**
   * The user's stream limit, for a test of the app's "too many screens": the default token
   * decision's v2 policy gets `max_stream_per_user: maxPerUser` and, with `renewalSeconds`,
   * `renewal_duration` (so the token answer carries `x-renewal-interval`). The license service
   * handlers count the streams as the emulator does (README, Streams).
   */
  streams?: { maxPerUser: number; renewalSeconds?: number };
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
  const policy = withStreams(options.policy ?? { policy_version: 2 }, options);
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

/** The default decision's policy with the stream limit of `streams`; a sentence for what cannot be. */
function withStreams(policy: AnyTokenPolicy, options: SiteHandlersOptions): AnyTokenPolicy {
  const { streams } = options;
  if (streams === undefined) return policy;
  const whole = (value: unknown) =>
    typeof value === 'number' && Number.isInteger(value) && value > 0;
  if (
    !whole(streams.maxPerUser) ||
    (streams.renewalSeconds !== undefined && !whole(streams.renewalSeconds))
  ) {
    throw new TypeError(
      'streams: maxPerUser must be a whole number of streams from 1, and renewalSeconds (optional) a whole number of seconds from 1.',
    );
  }
  if (options.authorizeToken !== undefined) {
    throw new TypeError(
      'streams sets the policy of the default token decision: with your own authorizeToken, put max_stream_per_user and renewal_duration in its policy.',
    );
  }
  if (!('policy_version' in policy)) {
    throw new TypeError(
      'streams needs a v2 policy ({ policy_version: 2, ... }): a v1 token cannot carry max_stream_per_user.',
    );
  }
  return {
    ...policy,
    playback_policy: {
      ...policy.playback_policy,
      max_stream_per_user: streams.maxPerUser,
      ...(streams.renewalSeconds === undefined ? {} : { renewal_duration: streams.renewalSeconds }),
    },
  };
}
