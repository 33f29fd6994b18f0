// The contract between the adapters' test page (in the browser) and the tests (in Node):
// `window.adapters`. Everything that crosses is plain JSON.

export const PLAYERS = ['shaka', 'hls', 'dash', 'videojs'] as const;
export type PlayerName = (typeof PLAYERS)[number];

/** The options of `attachLicenseAuth` that can cross from Node (no functions). */
export interface PageAuthOptions {
  contentId?: string;
  /** The first asset's cid, named with `auth.load()` before the player loads it. */
  name?: string;
  /** Token mode through `getToken`: the token endpoint per cid (e.g. a slow one for one asset). */
  tokenUrlFor?: Record<string, string>;
  tokenUrl?: string;
  customDataUrl?: string;
  /**
   * Token mode through `getToken`: the n-th token comes from the n-th URL (the last one repeats), so
   * a test can hand out a stale token first and fresh ones after it.
   */
  tokenUrls?: string[];
  /** Token and gateway modes: the license server per key system. */
  licenseServer?: Record<string, string>;
  /** Proxy mode: the site's license proxy instead of a token source and a license server. */
  licenseProxy?: string;
  /** Key system to drm_type (proxy mode names ClearKey's, as it serves every key system). */
  drmTypes?: Record<string, string>;
  header?: string;
  /** License renewal (the adapters' `renewal` option). */
  renewal?: { intervalSec?: number; pausedLimitSec?: number; hiddenLimitSec?: number };
}

export interface AdapterSetup {
  /** Id of the <video> element the page creates for this player. */
  id: string;
  player: PlayerName;
  manifestUrl: string;
  options: PageAuthOptions;
  /** The app's own settings for its license requests, each made in its player's own way. */
  app?: AppLicenseSettings;
}

/** What an app sets for its license requests, through its player's own hooks. */
export interface AppLicenseSettings {
  /** Send cookies: hls.js `xhr.withCredentials`, dash.js protection data `withCredentials`. */
  withCredentials?: boolean;
  /** Headers: hls.js `setRequestHeader`, dash.js `httpRequestHeaders`, video.js `emeHeaders`. */
  headers?: Record<string, string>;
  /**
   * Wraps the CDM's challenge in the app's envelope (these bytes in front): a Shaka request
   * filter registered before the handle, hls.js `licenseXhrSetup` returning the challenge, a
   * dash.js license request filter registered before the handle.
   */
  envelope?: string;
  /** dash.js: CMCD on (`streaming.cmcd`), sent as a query parameter or as headers. */
  cmcd?: 'query' | 'headers';
}

/** A player primitive that changes what the player holds, done the player's own way. */
export type PlayerAction =
  /** hls.js: `detachMedia()`, then `attachMedia()` of the same element. */
  | { type: 'detach-attach' }
  /** hls.js: `transferMedia()`, then `attachMedia()` of what it handed over. */
  | { type: 'transfer' }
  /** dash.js: `reset()`, then `auth.load(cid)` and `initialize(video, url)`. */
  | { type: 'reset'; asset: NextAsset }
  /**
   * video.js: `auth.load(cid)` and `src()` of the asset; then the element raises an `encrypted`
   * event with the init data of the source left, as Chromium does when that source's append
   * lands before the tech takes the new one.
   */
  | { type: 'src-then-stale-encrypted'; asset: NextAsset };

/** The next asset on the same player, loaded the player's own way after `auth.load(cid)`. */
export interface NextAsset {
  cid: string;
  manifestUrl: string;
}

/** An error as the app sees it through its player, and what `findLicenseAuthError` finds in it. */
export interface AppError {
  /** Where the player reported it (its error event, a rejected load, player.error()). */
  source: string;
  auth: {
    name: string;
    code: string;
    message: string;
    errorCode?: string;
    /** The limit a service refusal names (`streams`: 6003). */
    limit?: string;
    serviceMessage?: string;
    siteErrorCode?: string;
    siteErrorMessage?: string;
  } | null;
  /** The player's own error, as text (code, details), for failure messages. */
  player: string;
}

export interface AdapterStatus {
  /** The <video> element's id now (video.js moves it into a wrapper that takes the given id). */
  videoId: string;
  currentTime: number;
  /** The <video> element is paused (an unloaded or reset element is too). */
  paused: boolean;
  readyState: number;
  errors: AppError[];
  /** The cid of each license request sent, in order. */
  sentCids: string[];
  /** The media element raised `encrypted`: the CDM is about to ask for a license. */
  encrypted: boolean;
  /** Shaka Storage: `done`, or the error the download ended with. */
  stored?: string;
  /** Shaka Storage, per cid of `store()`: `done`, or the error that download ended with. */
  storedBy: Record<string, string>;
  /** The handle's renewals: the token source of each `license-renewal` request, renewals done, failures. */
  renewals: { sent: string[]; renewed: number; failed: string[] };
  /** `waiting` events of the <video> after it first played: each one a stall. */
  stalls: number;
  /** The handle's license events, in order. */
  licenses: Array<
    | { event: 'sent'; refreshed: boolean; tokenSource: string }
    | { event: 'answered'; status: number | undefined; errorCode?: string }
  >;
}

export interface AdapterHarness {
  /** Creates a 640x360 <video>, the player and its license auth, and starts playback. */
  start(setup: AdapterSetup): Promise<void>;
  status(id: string): AdapterStatus;
  /** The next asset on the player: `auth.load(cid)`, then the player's own load call. */
  next(id: string, asset: NextAsset): Promise<void>;
  /** The app stops the player its own way (Shaka `unload()`, hls.js `destroy()`, dash.js `reset()`, video.js `dispose()`). */
  stop(id: string): Promise<void>;
  /** Shaka only: a shaka.offline.Storage on the player downloads `asset` (`auth.store`). */
  store(id: string, asset: NextAsset): Promise<void>;
  /** Does `action` on the player (each player has its own). */
  act(id: string, action: PlayerAction): Promise<void>;
  /** Shaka only: one step of the app's own, with Shaka's preload and load calls. */
  shaka(id: string, step: ShakaStep): Promise<void>;
  /** Pauses, seeks to `seconds` and resolves once that frame is on screen, with its media time. */
  showFrame(id: string, seconds: number): Promise<number>;
  /** The player's license auth handle, for a walk of what it holds (not serialisable). */
  handleOf(id: string): unknown;
}

/**
 * A Shaka step: `auth.preload(cid, player.preload(url))`; `player.load()` of the preload made for
 * `loadPreloaded` (a cid); `player.load(url)` with no cid named (the app restarts what plays);
 * `preloadEach`: a preload of each cid in turn, run to its end (its license too), then let go.
 */
export type ShakaStep =
  | { preload: NextAsset }
  | { loadPreloaded: string }
  | { reload: string }
  | { preloadEach: { cids: string[]; manifestUrl: string } };
