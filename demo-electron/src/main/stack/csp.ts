/**
 * The page's Content-Security-Policy: scripts and styles from the app's own origin only, network
 * access to the app, the license service and the content server, media from MSE blobs. Two
 * allowances for the players: `data:` connections (the hls.js and dash.js adapters send each
 * license request themselves and hand the license to their player as a `data:` URL, which the
 * player loads) and workers from `blob:` URLs (video.js's VHS builds its transmuxer and decrypter
 * workers from code it carries, with no option to load them from a file).
 */
export function contentSecurityPolicy(connectOrigins: readonly string[]): string {
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    "media-src 'self' blob:",
    'worker-src blob:',
    `connect-src 'self' ${[...connectOrigins, 'data:'].join(' ')}`,
    "font-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
    "object-src 'none'",
  ].join('; ');
}

/** Headers of every page and asset the app serves. */
export function securityHeaders(csp: string): Record<string, string> {
  return {
    'content-security-policy': csp,
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
    'cross-origin-opener-policy': 'same-origin',
    'x-frame-options': 'DENY',
  };
}
