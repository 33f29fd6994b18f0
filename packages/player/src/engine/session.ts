import { LicenseAuthError } from './errors.ts';

/**
 * One load of one asset: a player's load (or Shaka's preload, or a Storage download). Its cid
 * goes with its prefetch and every license request of it; its token waits and license requests
 * end with it, and nothing else's do.
 */
export interface LoadSession {
  /** The cid the app named for this load; `undefined`: `contentId` / `getContentId` decide. */
  readonly cid: string | undefined;
  /** Aborts when the session ends, with an `ABORTED` `LicenseAuthError`. */
  readonly signal: AbortSignal;
  /** The session ended: what is still under way for it is dropped. */
  readonly ended: boolean;
  /**
   * It ended because the app moved on (another load, an unload, the download finished): what was
   * under way for it is dropped without an error. `false` while open, and after `detach()`.
   */
  readonly movedOn: boolean;
  end(why: string, movedOn?: boolean): void;
  /** The cid its license requests went with last, once one went (its renewals use it). */
  used?: string;
  /** Its stream ID, sent as `x-drm-stream-id` to local license servers only (made on first use). */
  id?: string;
  /** The player's own load (or the preload it takes): never ended as one of too many open. */
  player?: boolean;
}

/** `ended`: called as the session ends, before what waits on its signal hears it. */
export function openSession(cid: string | undefined, ended: () => void): LoadSession {
  const controller = new AbortController();
  const session = {
    cid,
    signal: controller.signal,
    ended: false,
    movedOn: false,
    end(why: string, quietly = true) {
      if (session.ended) return;
      session.ended = true;
      session.movedOn = quietly;
      ended();
      controller.abort(new LicenseAuthError('ABORTED', why));
    },
  };
  return session;
}

/**
 * The player's own loads, one after the other: the session of the load under way, opened when the
 * player starts loading (with the cid the app named for it) and ended when it unloads or loads
 * the next asset. Requests that arrive while no load is under way get a session of the cid named last.
 */
export interface PlayerLoads {
  /** The app names the cid of the asset the player loads next (and after, until it names another). */
  name(cid: string): void;
  /**
   * The player started loading: the previous load ends, a new session opens. `source` names what
   * loads: a player that announces one load twice (a second `loadstart` for the same source)
   * keeps its session, unless the app named a cid since.
   */
  started(source?: string): LoadSession;
  /** The player unloaded (or tore its stream down): the load under way ends. */
  ended(why: string): void;
  /** The session of the load under way (opened on first use). */
  current(): LoadSession;
  /**
   * The next load the player starts is this session's (Shaka: the preload the app handed to
   * `player.load()`), or a session of the cid named last (`undefined`); the cid named last stays
   * for the loads after.
   */
  take(session: LoadSession | undefined): void;
}

export function trackPlayerLoads(open: (cid: string | undefined) => LoadSession): PlayerLoads {
  let named: string | undefined;
  // What the load under way loads; forgotten when the app names a cid (the next load is new).
  let lastSource: string | undefined;
  let session: LoadSession | undefined;
  let taken: LoadSession | undefined;
  const own = (mine: LoadSession) => ((mine.player = true), mine);
  const loads: PlayerLoads = {
    name(cid) {
      if (typeof cid !== 'string' || !cid.trim()) {
        throw new LicenseAuthError(
          'INVALID_OPTIONS',
          'load(contentId): contentId must be a non-empty string.',
        );
      }
      named = cid;
      lastSource = undefined;
    },
    started(source) {
      const same = source !== undefined && source === lastSource;
      lastSource = source;
      if (same && !taken && session?.ended === false) return session;
      session?.end('The player loads another asset.');
      session = taken ?? own(open(named));
      taken = undefined;
      return session;
    },
    ended(why) {
      session?.end(why);
    },
    current() {
      if (session?.ended !== false) session = own(open(named));
      return session;
    },
    take(next) {
      taken = next && own(next);
    },
  };
  return loads;
}
