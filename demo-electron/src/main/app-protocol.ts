import type { WebHandler } from '@multidrm/site-kit';

/**
 * The Electron app's own scheme: the window's page, its assets and the site's token and custom-data
 * endpoints are answered in-process by a protocol handler, not by a loopback server that any local
 * process (or a DNS-rebinding page) could reach. Only web contents of the app's session can ask it.
 */
export const APP_SCHEME = 'multidrm-demo';
export const APP_HOST = 'app';
export const APP_ORIGIN = `${APP_SCHEME}://${APP_HOST}`;

/**
 * Registered before the app is ready. `standard` gives the page a real origin (so CSP 'self',
 * CORS and same-origin checks work), `secure` makes it a secure context (EME needs one),
 * `supportFetchAPI` and `corsEnabled` let the page's fetch, XHR and module scripts reach it.
 * No `bypassCSP`: the page's Content-Security-Policy applies as it does over HTTP.
 */
export const APP_SCHEME_PRIVILEGES = {
  standard: true,
  secure: true,
  supportFetchAPI: true,
  corsEnabled: true,
  stream: true,
} as const;

export interface ProtocolLike {
  registerSchemesAsPrivileged(
    schemes: { scheme: string; privileges: typeof APP_SCHEME_PRIVILEGES }[],
  ): void;
  handle(scheme: string, handler: (request: Request) => Promise<Response>): void;
  unhandle(scheme: string): void;
}

export function registerAppScheme(protocol: ProtocolLike): void {
  protocol.registerSchemesAsPrivileged([{ scheme: APP_SCHEME, privileges: APP_SCHEME_PRIVILEGES }]);
}

/** Whether a URL is on the app's own origin (scheme and host; Node's URL gives custom schemes an opaque origin). */
export function isOnAppOrigin(url: string | undefined, appOrigin: string): boolean {
  if (url === undefined || !URL.canParse(url) || !URL.canParse(appOrigin)) return false;
  const a = new URL(url);
  const b = new URL(appOrigin);
  return a.protocol === b.protocol && a.host === b.host && a.host !== '';
}

/** The protocol handler: requests for the app's host go to the stack, anything else is a 404. */
export function appProtocolHandler(handler: WebHandler): (request: Request) => Promise<Response> {
  return async (request) => {
    if (!isOnAppOrigin(request.url, APP_ORIGIN)) {
      return new Response('NOT_FOUND: nothing is served here.\n', {
        status: 404,
        headers: { 'content-type': 'text/plain; charset=utf-8' },
      });
    }
    try {
      return await handler(request);
    } catch {
      // A handler that throws would show Electron's own error page; answer plainly instead.
      return new Response('INTERNAL_ERROR: the demo could not answer this request.\n', {
        status: 500,
        headers: { 'content-type': 'text/plain; charset=utf-8' },
      });
    }
  };
}
