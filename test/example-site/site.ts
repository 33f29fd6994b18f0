import {
  createCustomDataHandler,
  createGatewayHandler,
  createTokenHandler,
  type GatewayDecision,
  type GatewayEvent,
  type SiteEndpointEvent,
  type SiteRefusal,
  type WebHandler,
} from '@multidrm/site-kit';

// A small site built with site-kit: its catalogue, its users (a `user` cookie stands in for a real
// session) and the three endpoints a license integration needs.

export interface ExampleSiteOptions {
  siteId: string;
  siteKey: string;
  accessKey: string;
  /** Origins of players served from elsewhere (CORS); none by default. */
  playerOrigins?: string[];
  onEvent?: (
    source: 'gateway' | 'token' | 'custom-data',
    event: GatewayEvent | SiteEndpointEvent,
  ) => void;
}

/** Content IDs starting with "free-" play for everyone; the rest for members only. */
export function mayPlay(userId: string | undefined, cid: string): boolean {
  if (cid.startsWith('free-')) return true;
  return userId !== undefined && userId.startsWith('member-');
}

function userOf(request: Request): string | undefined {
  const cookie = request.headers.get('cookie') ?? '';
  for (const part of cookie.split(';')) {
    const [name, value] = part.trim().split('=');
    if (name === 'user' && value) return decodeURIComponent(value);
  }
  return undefined;
}

function refuse(userId: string | undefined, cid: string): SiteRefusal {
  return userId === undefined
    ? { allow: false, status: 401, reason: 'Sign in to play this title.' }
    : { allow: false, status: 403, reason: `Your plan does not include ${cid}.` };
}

/** One web-standard handler that routes to the site's endpoints. */
export function createExampleSite(options: ExampleSiteOptions): WebHandler {
  const { siteId, siteKey, accessKey } = options;
  const cors = options.playerOrigins
    ? { origins: options.playerOrigins, credentials: true }
    : undefined;
  const report = options.onEvent;

  const gateway = createGatewayHandler({
    siteKey,
    authorize: (request): GatewayDecision =>
      mayPlay(request.user_id, request.cid)
        ? {
            allow: true,
            playback_policy: { limit: true, duration: 3600 },
            security_policy: { output_protect: { control_hdcp: 0 } },
          }
        : { allow: false, error_code: '4031', error_message: 'not entitled' },
    onEvent: report && ((event) => report('gateway', event)),
  });

  const token = createTokenHandler({
    siteId,
    siteKey,
    accessKey,
    cors,
    authorize: (request, { cid }) => {
      const userId = userOf(request);
      if (!mayPlay(userId, cid)) return refuse(userId, cid);
      return { allow: true, userId, policy: { playback_policy: { limit: true, duration: 3600 } } };
    },
    onEvent: report && ((event) => report('token', event)),
  });

  const customData = createCustomDataHandler({
    siteId,
    siteKey,
    cors,
    authorize: (request, { cid }) => {
      const userId = userOf(request);
      if (!mayPlay(userId, cid)) return refuse(userId, cid);
      return { allow: true, userId: userId ?? 'guest' };
    },
    onEvent: report && ((event) => report('custom-data', event)),
  });

  const routes: Record<string, WebHandler> = {
    '/gateway': gateway,
    '/token': token,
    '/custom-data': customData,
  };

  return async (request) => {
    const route = routes[new URL(request.url).pathname];
    if (route) return route(request);
    return new Response('Not found. Endpoints: POST /gateway, POST /token, POST /custom-data.\n', {
      status: 404,
      headers: { 'content-type': 'text/plain; charset=utf-8' },
    });
  };
}
