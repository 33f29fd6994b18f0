import { isOnAppOrigin } from './app-protocol.ts';
import type { SessionLike, WebContentsLike } from './electron-types.ts';

/** What playback needs: EME (ClearKey, or Widevine in a Widevine-enabled build) and fullscreen. */
export const ALLOWED_PERMISSIONS: ReadonlySet<string> = new Set(['mediaKeySystem', 'fullscreen']);

/** Whether a URL belongs to the app's own page (its scheme's origin, or the web mode's loopback one). */
export function isAppUrl(url: string | undefined, appOrigin: string): boolean {
  return isOnAppOrigin(url, appOrigin);
}

/** No navigation away from the app, no new windows, no webviews. */
export function hardenContents(
  contents: WebContentsLike,
  appOrigin: () => string | undefined,
): void {
  const guard = (event: { preventDefault(): void }, url: string) => {
    const origin = appOrigin();
    if (origin === undefined || !isAppUrl(url, origin)) event.preventDefault();
  };
  contents.on('will-navigate', guard);
  contents.on('will-redirect', guard);
  contents.on('will-attach-webview', (event) => event.preventDefault());
  contents.setWindowOpenHandler(() => ({ action: 'deny' }));
}

/** Every permission request is denied except those playback needs, and those only for the app. */
export function restrictPermissions(
  session: SessionLike,
  appOrigin: () => string | undefined,
): void {
  const allowed = (permission: string, url: string | undefined) => {
    const origin = appOrigin();
    return ALLOWED_PERMISSIONS.has(permission) && origin !== undefined && isAppUrl(url, origin);
  };
  session.setPermissionRequestHandler((_contents, permission, callback, details) =>
    callback(allowed(permission, details.requestingUrl)),
  );
  session.setPermissionCheckHandler((_contents, permission, requestingOrigin) =>
    allowed(permission, requestingOrigin),
  );
}
