import type { Engine } from '../engine/engine.ts';
import { LicenseAuthError } from '../engine/errors.ts';
import { trackOperations, type LoadSession, type Operations } from '../engine/session.ts';
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
  /** What Shaka gives for each operation, bound to the operation's session. */
  operations: Operations;
  sessionOf(request: ShakaRequest): Promise<LoadSession>;
  /** `drm.initDataTransform` for the configuration: the one the next download copies. */
  readonly transform: InitDataTransform;
  /** A preload of the asset `cid` (`player.preload()`, or the preload manager it resolved to). */
  preload(cid: string, preloading: object): LoadSession;
  /** A Storage download of the asset `cid` under way, until `operation` settles. */
  download(cid: string, operation: Operation): LoadSession;
  /** A Storage removal of the asset `cid` under way, until `operation` settles. */
  removal(cid: string, operation: Operation): LoadSession;
}

// How long a license request of a DRM engine the player does not report waits while the player
// loads: the player takes its DRM engine over within milliseconds of starting it.
const OWNER_WAIT_MS = 3000;
const OWNER_POLL_MS = 10;

/**
 * `playerDrmInfo`: the DRM info of the player's own load (`player.drmInfo`, absent on a Storage);
 * `loadingWithoutDrm`: a load is under way whose DRM engine the player does not report yet;
 * `configure`: puts the next download's `drm.initDataTransform` in the configuration.
 */
export function createLoadRouting(
  engine: Engine,
  previousTransform: InitDataTransform | undefined,
  playerDrmInfo: (() => DrmInfo | null) | undefined,
  loadingWithoutDrm: () => boolean,
  configure: (transform: InitDataTransform) => void,
): LoadRouting {
  const operations = trackOperations();
  const removals = new Set<LoadSession>();
  let unnamed: LoadSession | undefined;
  const until = (session: LoadSession, operation: Operation, why: string) => {
    const end = () => session.end(why);
    Promise.resolve('promise' in operation ? operation.promise : operation).then(end, end);
    return session;
  };
  // The transform the next download copies, and the download it is named for.
  let owner: { session?: LoadSession } = {};
  let transform: InitDataTransform;
  const nextTransform = (): InitDataTransform => {
    const named: typeof owner = (owner = {});
    return (initData, initDataType, drmInfo) => {
      if (named.session && drmInfo) operations.bind(drmInfo, named.session);
      return previousTransform ? previousTransform(initData, initDataType, drmInfo) : initData;
    };
  };

  // store() and preload() copied the configuration, and with it the transform, when called: that
  // transform is this operation's, and the next one gets a fresh one.
  const claim = (cid: string) => {
    const session = engine.open(cid);
    owner.session = session;
    configure((transform = nextTransform()));
    return session;
  };
  transform = nextTransform();
  return {
    operations,
    get transform() {
      return transform;
    },
    async sessionOf({ drmInfo, licenseRequestType }) {
      if (!drmInfo || !playerDrmInfo) return engine.loads.current();
      // The player's load starts its DRM engine (and, with init data in the manifest, its first
      // license requests) before the player reports it: a request of an engine the player does
      // not report waits until the player says whose it is.
      for (
        let waited = 0;
        waited < OWNER_WAIT_MS && drmInfo !== playerDrmInfo() && loadingWithoutDrm();
        waited += OWNER_POLL_MS
      ) {
        await new Promise((done) => setTimeout(done, OWNER_POLL_MS));
      }
      // The player's own engine is its load's, whatever else copied the same configuration.
      const own = drmInfo === playerDrmInfo() && engine.loads.current();
      if (own) operations.bind(drmInfo, own);
      const session = own || operations.of(drmInfo);
      if (licenseRequestType === 'license-release' && !session) {
        // A release carries the token of what it releases: the removal named for it.
        const [removal, other] = removals;
        if (other) throw several();
        if (removal) return removal;
      }
      // After its load ended (a persistent session released on unload) too.
      if (session?.ended && licenseRequestType === 'license-release')
        return engine.open(session.cid);
      // A DRM engine the app named nothing for: `contentId` / `getContentId` decide, as for a load.
      return session ?? (unnamed ??= engine.open(undefined));
    },
    preload(cid, preloading) {
      const session = claim(cid);
      operations.bind(preloading, session);
      // The preload manager the app hands to player.load() names that load.
      Promise.resolve(preloading).then(
        (manager) => operations.bind(manager as object, session),
        () => session.end('The preload failed.'),
      );
      return session;
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
}

const several = () =>
  new LicenseAuthError(
    'NO_CONTENT_ID',
    'A license release while several removals are under way: Shaka does not say whose; remove one at a time.',
  );
