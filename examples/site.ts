// The site's DRM endpoints as one web-standard handler, shared by every deployment in this
// folder: each runtime's file only serves it. Replace the `authorize` functions with your own
// session and entitlement checks; the keys come from the environment, never from the code.
import { createGatewayHandler } from '@multidrm/site-kit/gateway';
import { createLicenseProxy } from '@multidrm/site-kit/proxy';
import { createTokenHandler } from '@multidrm/site-kit/token';

/** The site's credentials from the administration site. */
export interface SiteEnv {
  SITE_ID: string;
  SITE_KEY: string;
  ACCESS_KEY: string;
  /** The license service's license URL; the license proxy is served only when it is set. */
  LICENSE_SERVER_URL?: string;
}

const NAMES = ['SITE_ID', 'SITE_KEY', 'ACCESS_KEY'] as const;

/** The credentials from an environment (process.env, a Worker's env), or an error naming what is missing. */
export function siteEnv(env: Record<string, string | undefined>): SiteEnv {
  const missing = NAMES.filter((name) => !env[name]);
  if (missing.length > 0) {
    throw new Error(
      `Set ${missing.join(', ')} in the environment (the values from the administration site).`,
    );
  }
  const licenseUrl = env['LICENSE_SERVER_URL'];
  return {
    SITE_ID: env['SITE_ID']!,
    SITE_KEY: env['SITE_KEY']!,
    ACCESS_KEY: env['ACCESS_KEY']!,
    ...(licenseUrl ? { LICENSE_SERVER_URL: licenseUrl } : {}),
  };
}

// A stand-in for the site's sessions: the cookie `session=<user id>` signs a user in. Never do this
// in production; look the session up in your own store.
function userOf(request: Request): string | undefined {
  const cookie = request.headers.get('cookie') ?? '';
  return /(?:^|;\s*)session=([\w-]+)/.exec(cookie)?.[1];
}

/**
 * POST /drm/token: the player asks for a license token (JSON body {"cid","drm_type"}).
 * POST /drm/gateway: the license service calls back in gateway mode.
 * POST /drm/license?drmType=&cid=: the license proxy (with LICENSE_SERVER_URL): the player's
 * license request goes to the service with a token the browser never sees.
 */
export function createSite(env: SiteEnv): (request: Request) => Promise<Response> {
  const token = createTokenHandler({
    siteId: env.SITE_ID,
    siteKey: env.SITE_KEY,
    accessKey: env.ACCESS_KEY,
    authorize: (request) => {
      const userId = userOf(request);
      if (userId === undefined) return { allow: false, status: 401, reason: 'Sign in first.' };
      return {
        allow: true,
        userId,
        policy: {
          policy_version: 2,
          playback_policy: { persistent: false, license_duration: 3600 },
          security_policy: [{ track_type: 'ALL', widevine: { security_level: 1 } }],
        },
      };
    },
  });
  const gateway = createGatewayHandler({
    siteKey: env.SITE_KEY,
    authorize: (request) =>
      request.user_id === ''
        ? { allow: false, error_code: '4031', error_message: 'no user' }
        : { allow: true, playback_policy: { limit: true, duration: 3600 } },
  });
  const proxy =
    env.LICENSE_SERVER_URL === undefined
      ? undefined
      : createLicenseProxy({
          siteId: env.SITE_ID,
          siteKey: env.SITE_KEY,
          accessKey: env.ACCESS_KEY,
          licenseUrl: env.LICENSE_SERVER_URL,
          authorize: (request) => {
            const userId = userOf(request);
            if (userId === undefined)
              return { allow: false, status: 401, reason: 'Sign in first.' };
            return { allow: true, userId }; // a v2 token unless you give a policy
          },
        });
  return async (request) => {
    const { pathname } = new URL(request.url);
    if (pathname === '/drm/token') return token(request);
    if (pathname === '/drm/gateway') return gateway(request);
    if (pathname === '/drm/license' && proxy !== undefined) return proxy(request);
    return new Response('Not found.', { status: 404 });
  };
}
