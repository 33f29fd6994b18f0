// The contract between the adapters' test page (in the browser) and the tests (in Node):
// `window.adapters`. Everything that crosses is plain JSON.

export const PLAYERS = ['shaka', 'hls', 'dash', 'videojs'] as const;
export type PlayerName = (typeof PLAYERS)[number];

/** The options of `attachLicenseAuth` that can cross from Node (no functions). */
export interface PageAuthOptions {
  contentId: string;
  tokenUrl?: string;
  customDataUrl?: string;
  /**
   * Token mode through `getToken`: the n-th token comes from the n-th URL (the last one repeats), so
   * a test can hand out a stale token first and fresh ones after it.
   */
  tokenUrls?: string[];
  licenseServer: Record<string, string>;
  header?: string;
}

export interface AdapterSetup {
  /** Id of the <video> element the page creates for this player. */
  id: string;
  player: PlayerName;
  manifestUrl: string;
  options: PageAuthOptions;
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
  readyState: number;
  errors: AppError[];
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
  /** Pauses, seeks to `seconds` and resolves once that frame is on screen, with its media time. */
  showFrame(id: string, seconds: number): Promise<number>;
}
