import type { Answer } from '../http/exchange.ts';
import { ProxyFailure } from './errors.ts';

/** Which pages may call the license proxy from the browser; never `*` with credentials. */
export interface ProxyCorsOptions {
  /** Exact origins of the pages allowed to call the proxy, e.g. "https://player.example". */
  origins: string[];
  /** Let those pages send the user's cookies (the site's session); default true. Never with `*`. */
  credentials?: boolean;
  /** How long a browser may cache the preflight; default 600. */
  maxAgeSeconds?: number;
}

export interface ProxyCors {
  /**
   * The CORS headers for a request, or a failure when a browser page on an unlisted origin calls:
   * such a request is refused before the site decides or the license service is called.
   */
  check(origin: string | null, fetchSite: string | null): Record<string, string> | ProxyFailure;
  /** The answer to an OPTIONS preflight. */
  preflight(origin: string | null): Answer | ProxyFailure;
}

/**
 * The proxy's CORS: an allow-list of exact origins (`*` is not an origin, so it cannot be listed).
 * A request without Origin (a TV, a cast receiver, a native app) passes; a request from a page
 * passes when its origin is listed or the browser says it is the proxy's own (`Sec-Fetch-Site:
 * same-origin`, which no page can forge); any other page is refused with 403 ORIGIN_NOT_ALLOWED.
 */
export function createProxyCors(
  options: ProxyCorsOptions | undefined,
  allowHeaders: readonly string[],
): ProxyCors {
  const allowed = new Set(options?.origins ?? []);
  const credentials = options?.credentials ?? true;
  const maxAge = String(options?.maxAgeSeconds ?? 600);
  const vary = { vary: 'Origin' };
  const refuse = (origin: string) =>
    new ProxyFailure(
      'ORIGIN_NOT_ALLOWED',
      `Pages on ${origin.slice(0, 100)} may not call this license proxy: add the origin to cors.origins.`,
    );
  const headersFor = (origin: string): Record<string, string> => ({
    'access-control-allow-origin': origin,
    ...(credentials ? { 'access-control-allow-credentials': 'true' } : {}),
    vary: 'Origin',
  });

  return {
    check(origin, fetchSite) {
      if (origin === null) return vary;
      if (allowed.has(origin)) return headersFor(origin);
      if (fetchSite === 'same-origin') return vary;
      return refuse(origin);
    },
    preflight(origin) {
      if (origin === null || !allowed.has(origin)) return refuse(origin ?? '(no origin)');
      return {
        status: 204,
        text: null,
        headers: {
          ...headersFor(origin),
          'access-control-allow-methods': 'GET, POST, OPTIONS',
          'access-control-allow-headers': ['content-type', ...allowHeaders].join(', '),
          'access-control-max-age': maxAge,
        },
      };
    },
  };
}
