// The contract between the test page (in the browser) and the tests (in Node): `window.harness`.
// Everything that crosses is plain JSON.

/** How the page authorizes its license requests. */
export type AuthSetup =
  /** Shaka's own ClearKey configuration: no license server; proves the harness alone. */
  | { mode: 'clear-keys'; clearKeys: Record<string, string> }
  /** @multidrm/player: tokens or gateway custom data from the site, attached by its filters. */
  | { mode: 'license-auth'; options: SerializableAuthOptions }
  /**
   * A token the app already holds, set as a fixed header by a plain request filter: the baseline the
   * license wait is measured against.
   */
  | { mode: 'static-header'; licenseServer: string; header: string; value: string };

/** The options of `attachLicenseAuth` that can cross from Node (no functions). */
export interface SerializableAuthOptions {
  contentId: string;
  tokenUrl?: string;
  customDataUrl?: string;
  licenseServer: Record<string, string>;
  header?: string;
  tokenTimeoutMs?: number;
  autoPrefetch?: boolean;
  retry?: { maxAttempts?: number; baseDelayMs?: number };
  freshTokenCodes?: string[];
  tokenLifetimeMs?: number;
  tokenMinRemainingMs?: number;
}

/** Shaka settings a test may change (plain JSON, passed to `player.configure`). */
export interface ShakaSettings {
  streaming?: { bufferingGoal?: number; rebufferingGoal?: number; bufferBehind?: number };
}

export interface PlaySetup {
  /** Id of the <video> element the page creates for this player. */
  id: string;
  manifestUrl: string;
  auth: AuthSetup;
  shaka?: ShakaSettings;
  /**
   * `store`: download the content with shaka.offline.Storage (built on the player, so the license
   * auth applies to its requests), then play the stored copy.
   */
  offline?: 'store';
}

/** One license request the page saw leave, after every request filter. */
export interface SentLicense {
  atMs: number;
  /** The token or custom data that went along (from the header or the query). */
  credential: string | null;
  /** What the player module said of it (`licenseRequestSent`). */
  refreshed?: boolean;
}

/** An error as the app sees it: Shaka's error, and inside it the one @multidrm/player raised. */
export interface AppError {
  source: 'error-event' | 'load';
  shakaCode: number | undefined;
  /** `findLicenseAuthError` on the Shaka error: TokenFetchError, LicenseServiceError, ... */
  auth: {
    name: string;
    code: string;
    message: string;
    status?: number;
    url?: string;
    /** TokenFetchError: the site's reason. */
    reason?: string;
    errorCode?: string;
    serviceMessage?: string;
    /** LicenseServiceError: the service's detail, as sent. */
    detail?: unknown;
    /** LicenseServiceError for 8002: the site's own code and message. */
    siteErrorCode?: string;
    siteErrorMessage?: string;
  } | null;
  /** Milliseconds after `load()` was called. */
  atMs: number;
}

export interface PlayerStatus {
  currentTime: number;
  paused: boolean;
  readyState: number;
  load: 'pending' | 'resolved' | 'rejected';
  errors: AppError[];
  /** Milliseconds after `load()` was called; absent until it happened. */
  marks: {
    /** The license request left the page (after every request filter, token attached). */
    licenseSent?: number;
    /** A license answer passed the response filters. */
    licenseReceived?: number;
  };
  /** Token wait the player module reported for its first license request. */
  tokenWaitMs?: number;
  /** Every license request that left the page, in order. */
  licenses: SentLicense[];
  /** Events of the player module, by name, in order (names only). */
  authEvents: string[];
  /** `store` mode: the stored content's offline URI once stored. */
  storedUri?: string;
}

export interface Harness {
  /** Creates a 640x360 <video>, a Shaka player and its license auth, and starts `load()`. */
  start(setup: PlaySetup): Promise<void>;
  status(id: string): PlayerStatus;
  /** Pauses, seeks to `seconds` and resolves once that frame is on screen, with its media time. */
  showFrame(id: string, seconds: number): Promise<number>;
  /** `player.unload()`; resolves with how long it took, in ms. */
  unload(id: string): Promise<number>;
  /** Destroys every player and removes its element. */
  reset(): Promise<void>;
}
