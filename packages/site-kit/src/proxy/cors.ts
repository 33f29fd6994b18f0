import type { Answer, Exchange } from '../http/exchange.ts';
import { foreignRequest } from '../http/request-guard.ts';
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
  check(exchange: Exchange): Record<string, string> | ProxyFailure;
  /** The answer to an OPTIONS preflight. */
  preflight(origin: string | null): Answer | ProxyFailure;
}

/**
 * The proxy's CORS: an allow-list of exact origins (`*` is not an origin, so it cannot be listed).
 * Which requests a page may make is the token endpoint's rule (foreignRequest): a request without
 * Origin or Sec-Fetch-Site (a TV, a cast receiver, a native app) passes, as does a page of the
 * proxy's own origin; a request a browser marks as from another site (Sec-Fetch-Site: cross-site
 * or same-site, with or without Origin) passes only from a listed origin. Any other is refused
 * with 403 ORIGIN_NOT_ALLOWED, before the site decides or the body is read.
 */
export function createProxyCors(
  options: ProxyCorsOptions | undefined,
  allowHeaders: readonly string[],
): ProxyCors {
  const allowed = new Set(options?.origins ?? []);
  const credentials = options?.credentials ?? true;
  const maxAge = String(options?.maxAgeSeconds ?? 600);
  const vary = { vary: 'Origin' };
  const isAllowed = (origin: string) => allowed.has(origin);
  const refuse = (origin: string | null, reason?: string) =>
    new ProxyFailure(
      'ORIGIN_NOT_ALLOWED',
      origin === null
        ? 'Pages on another site may not call this license proxy: add their origin to cors.origins.'
        : `Pages on ${origin.slice(0, 100)} may not call this license proxy: add the origin to cors.origins.`,
      reason === undefined ? {} : { reason },
    );
  const headersFor = (origin: string): Record<string, string> => ({
    'access-control-allow-origin': origin,
    ...(credentials ? { 'access-control-allow-credentials': 'true' } : {}),
    vary: 'Origin',
  });

  return {
    check(exchange) {
      const origin = exchange.header('origin');
      if (origin !== null && allowed.has(origin)) return headersFor(origin);
      const foreign = foreignRequest(exchange, isAllowed);
      return foreign === undefined ? vary : refuse(origin, foreign);
    },
    preflight(origin) {
      if (origin === null || !allowed.has(origin)) return refuse(origin);
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
