/**
 * The one contract between the renderer and the main process. In Electron it travels over IPC (the
 * preload exposes these functions by name); in `pnpm demo:web` over `POST /api/<call>` of the stack.
 * Every call answers a `Result`; nothing here ever carries a site key, access key or content key.
 */
import type { FaultInput } from '@multidrm/emulator';

/**
 * How the player is authorized: a token from the site in the player (token), custom data the
 * service checks with the site's gateway (gateway-json, gateway-xml), or the site's own license
 * proxy, which the player asks for licenses and which adds the token itself (proxy).
 */
export const MODES = ['token', 'gateway-json', 'gateway-xml', 'proxy'] as const;
export type Mode = (typeof MODES)[number];

/** The players the page can play with, each through its adapter of @multidrm/player. */
export const PLAYERS = ['shaka', 'hls', 'dash', 'videojs'] as const;
export type PlayerName = (typeof PLAYERS)[number];

export const TIME_RULES = ['none', 'duration', 'expire_date'] as const;
export type TimeRule = (typeof TIME_RULES)[number];

/** The policy controls of the page, as the site will grant them. */
export interface PolicyInput {
  limit: boolean;
  timeRule: TimeRule;
  /** Seconds; used when timeRule is "duration". */
  durationSeconds?: number;
  /** yyyy-mm-ddThh:mm:ssZ; used when timeRule is "expire_date". */
  expireDate?: string;
  persistent: boolean;
  /** output_protect.control_hdcp, or null for none. */
  hdcp: 0 | 1 | 2 | null;
  /** security_policy.playready_security_level, or null for none. */
  securityLevel: 150 | 2000 | null;
  /** The site sends the content key itself (external_key.mpeg_cenc / PACKINFO). */
  externalKey: boolean;
}

/**
 * The screens control: the user's concurrent-stream limit and the renewal interval the site grants
 * (v2 `max_stream_per_user`, `renewal_duration`; the token answer carries `x-renewal-interval`).
 */
export interface StreamLimit {
  maxPerUser: number;
  renewalSeconds: number;
}

/** The screens control's setting: three screens for one user who may watch on two. */
export const SCREENS = { count: 3, maxPerUser: 2, renewalSeconds: 10 } as const;

/**
 * How long the demo's emulator keeps counting a stream after its renewal interval ran out (its
 * `streamGraceSeconds`): a closed screen's slot frees this long after its interval.
 */
export const STREAM_GRACE_SECONDS = 5;

export interface PlayRequest {
  mode: Mode;
  player: PlayerName;
  userId: string;
  cid: string;
  policy: PolicyInput;
  /** A fault of the emulator's vocabulary to inject for this play (the faults menu); none if absent. */
  fault?: FaultInput;
  /** The screens control (token and proxy modes): the stream limit and renewal interval granted. */
  streams?: StreamLimit;
}

/** Everything the renderer needs to play: URLs and names only. */
export interface PlayPlan {
  mode: Mode;
  player: PlayerName;
  cid: string;
  siteId: string;
  /** The rendition of the sample this player reads (one set of encrypted segments). */
  manifestUrl: string;
  /** Its MIME type, e.g. application/dash+xml. */
  manifestType: string;
  keySystem: string;
  /** The license service's URL (proxy mode: where the site's proxy forwards the requests). */
  licenseUrl: string;
  /** The request header that carries the token or custom data (proxy mode: the proxy's). */
  header: string;
  /** Token mode: the site's token endpoint. */
  tokenUrl?: string;
  /** Gateway mode: the site's custom-data endpoint. */
  customDataUrl?: string;
  /**
   * Proxy mode: the site's license proxy, which the player sends its license requests to (with the
   * page's cookies, no token); the proxy decides, adds the token and forwards to `licenseUrl`.
   */
  licenseProxyUrl?: string;
  target: 'emulator' | 'real service';
}

export interface ContentEntry {
  cid: string;
  title: string;
  note: string;
}

export interface UserEntry {
  id: string;
  note: string;
}

/** The "real service" settings as the renderer may see them: whether keys are set, never the keys. */
export interface RealServiceView {
  enabled: boolean;
  licenseUrl: string;
  siteId: string;
  header: string;
  siteKeySet: boolean;
  accessKeySet: boolean;
}

/** What the settings form sends; keys left empty keep the ones main already holds. */
export interface RealServiceInput {
  enabled: boolean;
  licenseUrl: string;
  siteId: string;
  header: string;
  siteKey?: string;
  accessKey?: string;
}

export interface Setup {
  modes: readonly Mode[];
  users: readonly UserEntry[];
  contents: readonly ContentEntry[];
  /** The emulator's server-sent flow events. */
  eventsUrl: string;
  emulatorUrl: string;
  realService: RealServiceView;
  /** "electron" or "web": how this renderer talks to main. */
  shell: 'electron' | 'web';
}

export interface DemoError {
  /** The license service's code (digits) for its refusals; the page's or player's own otherwise. */
  code: string;
  message: string;
  /** What to change so that it works. */
  fix: string;
  /** The emulator's explanation beyond the service's answer (its named reason and detail). */
  explanation?: string;
}

export type Result<T> = { ok: true; value: T } | { ok: false; error: DemoError };

/** The calls, each with its argument and answer. */
export interface DemoApi {
  getSetup(): Promise<Result<Setup>>;
  preparePlay(request: PlayRequest): Promise<Result<PlayPlan>>;
  setRealService(settings: RealServiceInput): Promise<Result<RealServiceView>>;
}

export type DemoCall = keyof DemoApi;

/** IPC channel and HTTP path of each call. */
export const CALLS: Readonly<Record<DemoCall, { channel: string; path: string }>> = {
  getSetup: { channel: 'demo:get-setup', path: '/api/get-setup' },
  preparePlay: { channel: 'demo:prepare-play', path: '/api/prepare-play' },
  setRealService: { channel: 'demo:set-real-service', path: '/api/set-real-service' },
};

/** The name under which the preload exposes the API to the page. */
export const BRIDGE_NAME = 'multidrmDemo';
