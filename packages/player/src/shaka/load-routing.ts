import type { Engine } from '../engine/engine.ts';
import type { LoadSession } from '../engine/session.ts';
import type { DrmInfo, RequestContext, ShakaRequest } from './shaka-types.ts';

/** A Storage operation as `store()` returns it, or any promise that settles when it ends. */
export type Operation = PromiseLike<unknown> | { promise: PromiseLike<unknown> };

/**
 * Which load a Shaka license request belongs to. Each load, preload and Storage download has a
 * DRM engine of its own, and every license request of it carries that engine's `drmInfo`: the
 * first request of a `drmInfo` is matched (a preload's requests say so in their context; the
 * player's load is the one whose `drmInfo` the player reports; anything else is a download), and
 * the rest of its requests follow it.
 */
export interface LoadRouting {
  sessionOf(request: ShakaRequest, context: RequestContext | undefined): Promise<LoadSession>;
  /** A preload of the asset `cid` under way (`player.preload()`). */
  preload(cid: string, preloading: PromiseLike<unknown>): LoadSession;
  /** A Storage download of the asset `cid` under way, until `operation` settles. */
  download(cid: string, operation: Operation): LoadSession;
}

// How long a first license request waits for the player to say whether it is its own (see below),
// and how often it asks: the player takes its DRM engine over within milliseconds of starting it.
const OWNER_WAIT_MS = 3000;
const OWNER_POLL_MS = 10;

/**
 * `playerDrmInfo`: the DRM info of the player's own load (`player.drmInfo()`); `loadingWithoutDrm`:
 * whether a load is under way whose DRM engine the player does not report yet.
 */
export function createLoadRouting(
  engine: Engine,
  playerDrmInfo: () => DrmInfo | null | undefined,
  loadingWithoutDrm: () => boolean,
): LoadRouting {
  const bound = new WeakMap<DrmInfo, LoadSession>();
  // Sessions whose first license request has not come yet, oldest first.
  const preloads: LoadSession[] = [];
  const downloads: LoadSession[] = [];
  const take = (waiting: LoadSession[]) => {
    for (let open = waiting.shift(); open; open = waiting.shift()) if (!open.ended) return open;
    return undefined;
  };
  const adopted = new WeakSet<LoadSession>();

  return {
    async sessionOf(request, context) {
      const drmInfo = request.drmInfo;
      if (!drmInfo) return engine.loads.current();
      // The player's load starts its DRM engine (and, with init data in the manifest, its first
      // license requests) before the player reports it: a first request of an engine the player
      // does not report may then be that load's or a waiting download's. It waits until the player
      // says (or stops loading): given to the download, the load's request went out with the
      // download's token and the service refused it (7012, content ID mismatch).
      for (
        let waited = 0;
        waited < OWNER_WAIT_MS &&
        !bound.has(drmInfo) &&
        !context?.isPreload &&
        loadingWithoutDrm() &&
        downloads.some((waiting) => !waiting.ended);
        waited += OWNER_POLL_MS
      ) {
        await new Promise((done) => setTimeout(done, OWNER_POLL_MS));
      }
      const own = drmInfo === playerDrmInfo();
      let session = bound.get(drmInfo);
      if (!session) {
        session = context?.isPreload
          ? take(preloads)
          : own
            ? engine.loads.current()
            : (take(downloads) ?? engine.loads.current());
        session ??= engine.loads.current();
        bound.set(drmInfo, session);
      }
      // A preloaded asset the player now plays: its session is the player's load from here on.
      if (own && !session.ended && !adopted.has(session) && session !== engine.loads.current()) {
        adopted.add(session);
        engine.loads.adopt(session);
      }
      return session;
    },
    preload(cid, preloading) {
      const session = engine.open(cid);
      preloads.push(session);
      // A preload that failed has no requests to come.
      Promise.resolve(preloading).then(undefined, () => session.end('The preload failed.'));
      return session;
    },
    download(cid, operation) {
      const session = engine.open(cid);
      downloads.push(session);
      const settled = 'promise' in operation ? operation.promise : operation;
      const end = () => session.end('The download ended.');
      Promise.resolve(settled).then(end, end);
      return session;
    },
  };
}
