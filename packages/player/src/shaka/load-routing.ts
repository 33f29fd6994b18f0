import type { Engine } from '../engine/engine.ts';
import { LicenseAuthError } from '../engine/errors.ts';
import type { LoadSession } from '../engine/session.ts';
import type { DrmInfo, InitDataTransform, ShakaRequest } from './shaka-types.ts';

/** A Storage operation as `store()` returns it, or any promise that settles when it ends. */
export type Operation = PromiseLike<unknown> | { promise: PromiseLike<unknown> };

/**
 * Which operation a Shaka license request belongs to, by what Shaka gives for each (every load,
 * preload, download and removal has a DRM engine of its own, whose `drmInfo` every license request
 * of it carries):
 * - the player's load: the DRM engine the player reports (`player.drmInfo()`); the load of a
 *   preload is the one the app handed the preload manager to (`player.load(manager)`);
 * - a preload or a Storage download: `player.preload()` and `store()` copy the configuration when
 *   called, and their DRM engine calls that copy's `drm.initDataTransform` with its `drmInfo`
 *   before each new session's license request (a preload asks for licenses before it is played):
 *   each one named with `auth.preload()` / `auth.store()` leaves a transform of its own in it;
 * - a removal's release (`storage.remove()`): its DRM engine calls nothing first; the removal the
 *   app named with `auth.remove()`, while only one is under way (with several, it fails).
 * A request of none of them goes with `contentId` / `getContentId`, never with another load's cid.
 */
export interface LoadRouting {
  /** The session of what Shaka gave for an operation (a preload manager), if it is bound to one. */
  of(key: unknown): LoadSession | undefined;
  /** The session of a license request (one with its `drmInfo`: the filters take no other). */
  sessionOf(request: ShakaRequest): Promise<LoadSession>;
  /** `drm.initDataTransform` for the configuration: the one the next download copies. */
  transform: InitDataTransform;
  /**
   * A preload of the asset `cid` (`player.preload()`, or the preload manager it resolved to).
   * Returns what it was given, as the handle's methods below do.
   */
  preload<T extends object>(cid: string, preloading: T): T;
  /** A Storage download of the asset `cid` under way, until `operation` settles. */
  download<T extends Operation>(cid: string, operation: T): T;
  /** A Storage removal of the asset `cid` under way, until `operation` settles. */
  removal<T extends Operation>(cid: string, operation: T): T;
}

/** What the routing uses of a shaka.Player (a shaka.offline.Storage has no `drmInfo`). */
export interface RoutedPlayer {
  /** The DRM info of the player's own load. */
  drmInfo?(): DrmInfo | null;
  isFullyLoaded?(): boolean;
  getAssetUri?(): string | null;
  configure(config: object): unknown;
}

// How long a license request of a DRM engine the player does not report waits while the player
// loads: the player takes its DRM engine over within milliseconds of starting it.
const OWNER_WAIT_MS = 3000;
const OWNER_POLL_MS = 10;

/**
 * `previousTransform`: the app's `drm.initDataTransform`, which every transform calls on;
 * `opened`: a preload's or a download's session was opened (its token may be fetched ahead).
 */
export function createLoadRouting(
  engine: Engine,
  player: RoutedPlayer,
  previousTransform: InitDataTransform | undefined,
  opened: (session: LoadSession) => void,
): LoadRouting {
  // What Shaka gives for each operation (a DRM engine's drmInfo, a preload manager), bound to the
  // operation's session: requests are looked up by it, never by the order they arrive in; the
  // first binding holds.
  const bound = new WeakMap<object, LoadSession>();
  const bind = (key: object | null, session: LoadSession) => {
    if (key && !bound.has(key)) bound.set(key, session);
  };
  const removals = new Set<LoadSession>();
  let unnamed: LoadSession | undefined;
  const until = <T extends Operation>(session: LoadSession, operation: T, why: string) => {
    const end = () => session.end(why);
    Promise.resolve('promise' in operation ? operation.promise : operation).then(end, end);
    return operation;
  };
  // Names the download or preload the transform in the configuration was copied for.
  let name: (session: LoadSession) => void;
  const nextTransform = (): InitDataTransform => {
    let named: LoadSession | undefined;
    name = (session) => (named = session);
    return (initData, initDataType, drmInfo) => {
      if (named) bind(drmInfo, named);
      return previousTransform ? previousTransform(initData, initDataType, drmInfo) : initData;
    };
  };

  // store() and preload() copied the configuration, and with it the transform, when called: that
  // transform is this operation's, and the next one gets a fresh one.
  const claim = (cid: string) => {
    const session = engine.open(cid);
    name(session);
    routing.transform = nextTransform();
    player.configure({ drm: { initDataTransform: routing.transform } });
    opened(session);
    return session;
  };
  const routing: LoadRouting = {
    transform: nextTransform(),
    of: (key) => bound.get(key as object),
    async sessionOf({ drmInfo, licenseRequestType }) {
      if (!player.drmInfo) return engine.loads.current();
      // The player's load starts its DRM engine (and, with init data in the manifest, its first
      // license requests) before the player reports it: while a load under way has not handed
      // its DRM engine to the player yet, a request waits until the player says whose it is.
      // A shaka.Player (it has drmInfo()) has the others too.
      for (
        let polls = OWNER_WAIT_MS / OWNER_POLL_MS;
        polls-- && !player.isFullyLoaded!() && player.getAssetUri!() && !player.drmInfo();
      ) {
        await new Promise((done) => setTimeout(done, OWNER_POLL_MS));
      }
      // The player's own engine is its load's, whatever else copied the same configuration.
      const own = drmInfo === player.drmInfo() && engine.loads.current();
      if (own) bind(drmInfo, own);
      const session = own || bound.get(drmInfo!);
      const release = licenseRequestType === 'license-release';
      if (release && !session) {
        // A release carries the token of what it releases: the removal named for it.
        const [removal, other] = removals;
        if (other) {
          throw new LicenseAuthError(
            'NO_CONTENT_ID',
            'A license release during several removals: Shaka does not say whose; remove one at a time.',
          );
        }
        if (removal) return removal;
      }
      // After its load ended (a persistent session released on unload) too.
      if (release && session?.ended) return engine.open(session.cid);
      // A DRM engine the app named nothing for: `contentId` / `getContentId` decide, as for a load.
      return session ?? (unnamed ??= engine.open());
    },
    preload(cid, preloading) {
      const session = claim(cid);
      bind(preloading, session);
      // The preload manager the app hands to player.load() names that load.
      Promise.resolve(preloading).then(
        (manager) => bind(manager as object, session),
        () => session.end('The preload failed.'),
      );
      return preloading;
    },
    download(cid, operation) {
      return until(claim(cid), operation, 'The download ended.');
    },
    removal(cid, operation) {
      const session = engine.open(cid);
      removals.add(session);
      session.signal.addEventListener('abort', () => removals.delete(session));
      return until(session, operation, 'The removal ended.');
    },
  };
  return routing;
}
