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
}

export interface DemoSiteOptions {
  /** The site as the emulator knows it: token mode and gateway JSON. */
  json: SiteCredentials;
  /** The same site registered a second time with an XML gateway (the old specification). */
  xml: SiteCredentials;
  session: () => SiteSession;
  /** Credentials for tokens when the real service is the target, else undefined. */
  realCredentials: () => SiteCredentials | undefined;
}

/** The endpoints a site built with site-kit offers, under the paths the plan hands to the player. */
export const SITE_PATHS = {
  token: '/token',
  customDataJson: '/custom-data',
  customDataXml: '/custom-data-xml',
  gatewayJson: '/gateway',
  gatewayXml: '/gateway-xml',
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

  const tokenHandlers = new Map<string, WebHandler>();
  const tokenHandlerFor = (credentials: SiteCredentials): WebHandler => {
    const key = JSON.stringify(credentials);
    let handler = tokenHandlers.get(key);
    if (handler === undefined) {
      handler = createTokenHandler({
        ...credentials,
        authorize: (_request, { cid }) => {
          const { userId, policy } = session();
          if (userId === undefined || !isEntitled(userId, cid)) return refuse(userId, cid);
          // Token mode writes the service's current token (v2); the page's controls are the
          // gateway's (v1) shape, which the conversion maps member by member.
          return { allow: true, userId, policy: convertPolicyToV2(policy).policy };
        },
      });
      tokenHandlers.set(key, handler);
    }
    return handler;
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
    return routes[pathname]?.(request);
  };
}
