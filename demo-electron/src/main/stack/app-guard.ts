import { randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * Who may talk to the app's loopback server in the web mode (`pnpm demo:web`). Its token endpoint
 * signs with the site's keys, possibly a real service's, so three checks stand in front of it:
 *
 * - **Host** must be the address the server listens on: a DNS-rebinding page reaches 127.0.0.1
 *   under its own host name, and gets nothing (421).
 * - **A launch key**, made at each start and printed in the address the script shows, is traded
 *   once for an HttpOnly, SameSite=Strict session cookie; every page, asset, site and API request
 *   must carry that cookie (403 otherwise). A local process or another site that only knows the
 *   port gets no page, no token and no API.
 * - **Origin** must be the app's own on every request that is not GET or HEAD (the token, custom
 *   data and API calls are POSTs, which browsers always send with Origin).
 *
 * The gateway paths pass with the Host check alone: the emulator calls them server to server, and
 * their requests and answers are encrypted with the site key.
 */
export interface AppGuardOptions {
  /** The server's own origin, e.g. http://127.0.0.1:41234 (known once it listens). */
  origin: () => string;
  /** Paths that the license service calls (the gateways): Host check only. */
  serverPaths: ReadonlySet<string>;
}

export interface AppGuard {
  /** The path and query that trade the launch key for the session cookie: `/?launch=…`. */
  readonly launchPath: string;
  /** A refusal, the launch's redirect, or undefined when the request may go on. */
  check(request: Request): Response | undefined;
}

export const SESSION_COOKIE = 'multidrm_demo_session';
const LAUNCH_PARAM = 'launch';

const secret = () => randomBytes(24).toString('base64url');

function sameSecret(given: string | null | undefined, expected: string): boolean {
  if (given === null || given === undefined) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

function refusal(status: number, code: string, message: string): Response {
  return new Response(`${code}: ${message}\n`, {
    status,
    headers: { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' },
  });
}

function cookieOf(request: Request, name: string): string | undefined {
  for (const part of (request.headers.get('cookie') ?? '').split(';')) {
    const at = part.indexOf('=');
    if (at > 0 && part.slice(0, at).trim() === name) return part.slice(at + 1).trim();
  }
  return undefined;
}

export function createAppGuard(options: AppGuardOptions): AppGuard {
  const launchKey = secret();
  const sessionKey = secret();
  return {
    launchPath: `/?${LAUNCH_PARAM}=${launchKey}`,
    check(request) {
      const origin = options.origin();
      if (request.headers.get('host') !== new URL(origin).host) {
        return refusal(
          421,
          'MISDIRECTED_HOST',
          'This server answers only at the address the demo printed.',
        );
      }
      const url = new URL(request.url);
      if (options.serverPaths.has(url.pathname)) return undefined;
      const method = request.method;
      if (method !== 'GET' && method !== 'HEAD' && request.headers.get('origin') !== origin) {
        return refusal(403, 'FORBIDDEN_ORIGIN', 'Only the demo page may call the demo.');
      }
      const launch = url.searchParams.get(LAUNCH_PARAM);
      if (launch !== null && method === 'GET' && url.pathname === '/') {
        if (!sameSecret(launch, launchKey)) {
          return refusal(403, 'BAD_LAUNCH_KEY', 'The launch key is not this run of the demo.');
        }
        // The key leaves the address bar at once; the cookie, not script-readable, stays.
        return new Response(null, {
          status: 303,
          headers: {
            location: '/',
            'set-cookie': `${SESSION_COOKIE}=${sessionKey}; Path=/; HttpOnly; SameSite=Strict`,
            'cache-control': 'no-store',
          },
        });
      }
      if (!sameSecret(cookieOf(request, SESSION_COOKIE), sessionKey)) {
        return refusal(
          403,
          'LAUNCH_KEY_REQUIRED',
          "Open the demo at the full address pnpm demo:web printed (it carries this run's launch key).",
        );
      }
      return undefined;
    },
  };
}
