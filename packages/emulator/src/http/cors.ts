/** Headers a browser player may read from the emulator's answers. */
export const EXPOSED_HEADERS = ['x-drm-license-policy', 'x-drm-request-id', 'x-drm-error-code'];

export interface CorsPolicy {
  /**
   * The CORS headers for a request from `origin` (null: not a browser, or same origin), or
   * 'denied' when a browser origin outside the configured list made it.
   */
  headersFor(origin: string | null): Record<string, string> | 'denied';
  /** The answer to a preflight (OPTIONS) request. */
  preflightHeaders(origin: string | null): Record<string, string> | 'denied';
}

export function createCorsPolicy(
  allowedOrigins: readonly string[] | undefined,
  requestHeaders: readonly string[],
): CorsPolicy {
  // Closed by default: a page the developer happens to visit must not read the flow or get
  // licenses. Browser players need their origin listed, or '*' for any.
  const anyOrigin = allowedOrigins?.includes('*') ?? false;
  const allowed = new Set(allowedOrigins?.map((o) => o.toLowerCase()));

  const exposed = EXPOSED_HEADERS.join(', ');

  function headersFor(origin: string | null): Record<string, string> | 'denied' {
    if (anyOrigin) {
      return { 'access-control-allow-origin': '*', 'access-control-expose-headers': exposed };
    }
    if (origin === null) return { vary: 'Origin' };
    if (!allowed.has(origin.toLowerCase())) return 'denied';
    return {
      'access-control-allow-origin': origin,
      vary: 'Origin',
      'access-control-expose-headers': exposed,
    };
  }

  return {
    headersFor,
    preflightHeaders(origin) {
      const base = headersFor(origin);
      if (base === 'denied') return base;
      return {
        ...base,
        'access-control-allow-methods': 'POST, GET, OPTIONS',
        'access-control-allow-headers': ['content-type', ...requestHeaders].join(', '),
        'access-control-max-age': '600',
      };
    },
  };
}
