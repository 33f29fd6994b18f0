import type { SessionLike, WebContentsLike } from './electron-types.ts';

/** What playback needs: EME (ClearKey, or Widevine in a Widevine-enabled build) and fullscreen. */
export const ALLOWED_PERMISSIONS: ReadonlySet<string> = new Set(['mediaKeySystem', 'fullscreen']);

const originOf = (url: string | undefined): string | undefined => {
  if (url === undefined || !URL.canParse(url)) return undefined;
  return new URL(url).origin;
};

/** Whether a URL belongs to the app's own page (the stack's loopback origin). */
export function isAppUrl(url: string | undefined, appOrigin: string): boolean {
  return originOf(url) === appOrigin;
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
  const allowed = (permission: string, origin: string | undefined) =>
    ALLOWED_PERMISSIONS.has(permission) && origin !== undefined && origin === appOrigin();
  session.setPermissionRequestHandler((_contents, permission, callback, details) =>
    callback(allowed(permission, originOf(details.requestingUrl))),
  );
  session.setPermissionCheckHandler((_contents, permission, requestingOrigin) =>
    allowed(permission, originOf(requestingOrigin)),
  );
}
