// One Shaka player, many assets in a row, as a site plays them: the real shaka.Player loads (its
// `unloading` and `loading` events), its networking engine and filters, a shaka.offline.Storage on
// it. The asset's cid goes with its own load; switching while a token is on its way is no error.
// Shaka's DRM engine needs EME, which happy-dom lacks: license requests are made as it makes them
// (harness.ts), and its failure callback is called with the error it builds.
import { describe, expect, test } from 'vitest';
import { http, HttpResponse } from 'msw';
import { findLicenseAuthError, type LicenseAuthHandle } from '../src/index.ts';
import type Shaka from 'shaka-player';
import { slowSite } from './slow-site.ts';
import {
  LICENSE_URL,
  rejection,
  requestLicense,
  server,
  shaka,
  SITE,
  useLicenseAuthHarness,
  videoElement,
  type Player,
} from './harness.ts';

const h = useLicenseAuthHarness();
const noop = () => undefined;
/**
 * `auth.store(cid, storage.store(url))` as Shaka runs it: store() copies the configuration when
 * called (a Storage built on a player shares the player's), and its DRM engine hands its drmInfo
 * to that copy's `drm.initDataTransform` before its first license request (storage.js,
 * drm_engine.js). happy-dom has no IndexedDB for store() itself. Returns the download's drmInfo.
 */
function storeOn(
  player: Player,
  handle: LicenseAuthHandle,
  cid: string,
  operation: PromiseLike<unknown> | { promise: PromiseLike<unknown> },
) {
  const { drm } = player.getConfiguration();
  handle.store(cid, operation);
  const drmInfo = { keySystem: 'com.widevine.alpha' } as Shaka.default.extern.DrmInfo;
  drm.initDataTransform!(new Uint8Array([1]), 'cenc', drmInfo);
  return { drmInfo };
}
/** What sends a request of a DRM engine the player does not report (its networking engine). */
const storageOf = (player: Player) => ({ getNetworkingEngine: () => player.getNetworkingEngine() });

/** A player on a <video>, whose manifests load (and fail to parse: happy-dom plays nothing). */
async function playerWithSite(options: { failureCallback?: (error: unknown) => void } = {}) {
  const site = slowSite();
  server.use(http.get(`${SITE}/:asset.mpd`, () => HttpResponse.text('<MPD/>')));
  const player = h.setupPlayerOnly();
  player.configure({
    drm: {
      preferredKeySystems: ['com.widevine.alpha'],
      ...(options.failureCallback && { failureCallback: options.failureCallback }),
    },
  });
  await player.attach(videoElement());
  // The app's own filter, before the handle's: it tells when a license request reached the filters.
  const reached: string[] = [];
  player.getNetworkingEngine()!.registerRequestFilter((type, request) => {
    if (type === shaka.net.NetworkingEngine.RequestType.LICENSE) reached.push(request.uris[0]!);
  });
  const handle = h.attach(player, { tokenUrl: undefined, getToken: site.getToken });
  const play = (auth: LicenseAuthHandle, cid: string) => {
    auth.load(cid);
    void player.load(`${SITE}/${cid}.mpd`).catch(noop);
  };
  return { site, player, handle, play, reached: () => reached.length };
}

/** The error drm_engine.js builds for a license request that failed, and hands to the callback. */
function licenseRequestFailed(networkError: unknown) {
  const { Severity, Category, Code } = shaka.util.Error;
  return new shaka.util.Error(
    Severity.CRITICAL,
    Category.DRM,
    Code.LICENSE_REQUEST_FAILED,
    networkError,
    {
      sessionId: 's',
      sessionType: 'temporary',
      initData: new Uint8Array([1]),
      initDataType: 'cenc',
    },
  );
}
const fail = (player: Player, error: unknown) =>
  player.getConfiguration().drm.failureCallback(error as never);

describe('a playlist: asset A, then asset B on the same player', () => {
  test("each load's prefetch and license request use its own cid", async () => {
    const { site, player, handle, play } = await playerWithSite();
    play(handle, 'A');
    await expect.poll(site.cids).toEqual(['A']);
    site.give('A');
    await requestLicense(player);
    play(handle, 'B');
    await expect.poll(site.cids).toEqual(['A', 'B']);
    site.give('B');
    await requestLicense(player);
    expect(h.seen.license.map((l) => l.header)).toEqual(['token-A', 'token-B']);
  });

  test("a switch while A's token is on its way: A's request is dropped without an error, its late token is not used, B plays", async () => {
    const appCalls: unknown[] = [];
    const appCallback = (error: unknown) => void appCalls.push(error);
    const { site, player, handle, play } = await playerWithSite({ failureCallback: appCallback });
    const failed: unknown[] = [];
    handle.on('licenseFailed', (event) => failed.push(event));
    play(handle, 'A');
    await expect.poll(site.cids).toEqual(['A']);
    const requestA = rejection(requestLicense(player));

    play(handle, 'B');
    const errorA = await requestA;
    // The site's fetch of A's token was dropped with A's load.
    expect(site.asked[0]?.signal.aborted).toBe(true);
    // What Shaka's DRM engine does with the failed request: the callback marks it handled, so
    // no error event; the app's own callback and licenseFailed hear nothing of it.
    const shakaError = licenseRequestFailed(errorA);
    fail(player, shakaError);
    expect(shakaError.handled).toBe(true);
    expect(appCalls).toEqual([]);
    expect(failed).toEqual([]);

    site.give('A'); // arrives late: dropped
    await expect.poll(site.cids).toEqual(['A', 'B']);
    site.give('B');
    await requestLicense(player);
    expect(h.seen.license.map((l) => l.header)).toEqual(['token-B']);
    // A's token was never kept: asking for A again goes to the site.
    const again = handle.prefetch({ contentId: 'A' });
    await expect.poll(site.cids).toEqual(['A', 'B', 'A']);
    site.give('A');
    expect(await again).toBe(true);
  });

  test("a failure of the asset still loading is the app's error as before", async () => {
    const appCalls: unknown[] = [];
    const appCallback = (error: unknown) => void appCalls.push(error);
    const { player, handle } = await playerWithSite({ failureCallback: appCallback });
    handle.detach();
    const auth = h.attach(player, {
      tokenUrl: undefined,
      getToken: async () => {
        throw new Error('site down');
      },
      retry: { maxAttempts: 1 },
    });
    auth.load('A');
    const shakaError = licenseRequestFailed(await rejection(requestLicense(player)));
    fail(player, shakaError);
    expect(shakaError.handled).toBeFalsy();
    expect(appCalls).toEqual([shakaError]);
  });
});

describe('a Storage download beside the player', () => {
  test('survives the player unloading and loading another asset, and gets its own cid', async () => {
    const { site, player, handle, play } = await playerWithSite();
    const storage = new shaka.offline.Storage(player);
    play(handle, 'A');
    await expect.poll(site.cids).toEqual(['A']);
    let finish: () => void = noop;
    const downloading = storeOn(player, handle, 'S', {
      promise: new Promise<void>((resolve) => (finish = resolve)),
    });
    const download = requestLicense(storage, downloading);
    await expect.poll(site.cids).toEqual(['A', 'S']);

    await player.unload();
    play(handle, 'B');
    await expect.poll(site.cids).toEqual(['A', 'S', 'B']);
    expect(site.asked.map((a) => [a.cid, a.signal.aborted])).toEqual([
      ['A', true],
      ['S', false],
      ['B', false],
    ]);
    site.give('S');
    await download;
    expect(h.seen.license.map((l) => l.header)).toEqual(['token-S']);
    finish();
    await storage.destroy();
  });

  test('a download of the asset the player unloads keeps the token fetch they shared', async () => {
    const { site, player, handle, play, reached } = await playerWithSite();
    const storage = new shaka.offline.Storage(player);
    play(handle, 'A');
    await expect.poll(site.cids).toEqual(['A']);
    const playing = rejection(requestLicense(player));
    await expect.poll(reached).toBe(1);
    const download = requestLicense(storage, storeOn(player, handle, 'A', new Promise(noop)));
    await expect.poll(reached).toBe(2);
    await player.unload();
    await playing;
    expect(site.asked[0]?.signal.aborted).toBe(false);
    site.give('A');
    await download;
    expect(h.seen.license.map((l) => l.header)).toEqual(['token-A']);
    expect(site.cids()).toEqual(['A']);
    await storage.destroy();
  });
});

describe("Shaka's preload: the load that takes it (player.load(manager)) has its cid", () => {
  /**
   * What player.preload() resolves to: a shaka.media.PreloadManager, which the app hands to
   * player.load(). (happy-dom has no MediaSource, where player.preload() gives up: the manager is
   * made as the player makes it, and loads nothing.)
   */
  const preload = (handle: LicenseAuthHandle, player: Player, cid: string) =>
    handle.preload(
      cid,
      Promise.resolve(
        new shaka.media.PreloadManager(`${SITE}/${cid}.mpd`, 'application/dash+xml', null, {
          config: player.getConfiguration(),
        }),
      ),
    );
  /** player.load(manager), until the player announces the load (`loading`). */
  const take = async (
    player: Player,
    manager: Shaka.default.media.PreloadManager | string | null,
  ) => {
    const loading = new Promise((started) => player.addEventListener('loading', started));
    void player.load(manager!).catch(noop);
    await loading;
  };
  /** The DRM engine of the player's load under way, which the player reports. */
  const engineOf = (player: Player) => {
    const drmInfo = { keySystem: 'com.widevine.alpha' } as Shaka.default.extern.DrmInfo;
    player.drmInfo = () => drmInfo;
    return { drmInfo };
  };

  test("two preloads, the second played first: its load sends its own cid, not the first preload's", async () => {
    const { site, player, handle } = await playerWithSite();
    const [, p2] = await Promise.all([
      preload(handle, player, 'P1'),
      preload(handle, player, 'P2'),
    ]);
    await expect.poll(() => site.cids().sort()).toEqual(['P1', 'P2']);
    site.give('P1');
    site.give('P2');
    // (happy-dom loads no manifest: one load per player here; test/e2e plays P1 after P2.)
    await take(player, p2);
    const engine = engineOf(player);
    await requestLicense(player, engine);
    // A later request of the same load (a renewal would fetch a fresh token): still P2's.
    await requestLicense(player, { ...engine, sessionId: 'next-key' });
    expect(h.seen.license.map((l) => l.header)).toEqual(['token-P2', 'token-P2']);
    // P1's fetch is still its own, for the load that takes P1.
    expect(site.asked.find((a) => a.cid === 'P1')?.signal.aborted).toBe(false);
  });

  // A preload asks for its licenses while it preloads (its manifest filter creates the sessions):
  // preload() copies the configuration when called, and its DRM engine hands its drmInfo to that
  // copy's initDataTransform first, as storeOn() does for a download.
  test('two preloads ask for licenses while preloading, the second first: each sends its own cid', async () => {
    const { site, player, handle } = await playerWithSite();
    const preloading = (cid: string) => {
      const { drm } = player.getConfiguration();
      handle.preload(cid, new Promise(noop));
      const drmInfo = { keySystem: 'com.widevine.alpha' } as Shaka.default.extern.DrmInfo;
      return () => {
        drm.initDataTransform!(new Uint8Array([1]), 'cenc', drmInfo);
        return requestLicense(storageOf(player), { drmInfo, context: { isPreload: true } });
      };
    };
    const p1 = preloading('P1');
    const p2 = preloading('P2');
    await expect.poll(() => site.cids().sort()).toEqual(['P1', 'P2']);
    site.give('P1');
    site.give('P2');
    await p2();
    await p1();
    expect(h.seen.license.map((l) => l.header)).toEqual(['token-P2', 'token-P1']);
  });

  test("a preload that is never played takes no one's requests, nor renames later loads", async () => {
    const { site, player, handle, play } = await playerWithSite();
    play(handle, 'A');
    await expect.poll(site.cids).toEqual(['A']);
    site.give('A');
    await requestLicense(player);
    // Preloaded, never used: the app restarts A (a retry), then plays B and a second preload.
    await preload(handle, player, 'P1');
    await expect.poll(site.cids).toEqual(['A', 'P1']);
    await take(player, `${SITE}/A.mpd`);
    await requestLicense(player, engineOf(player));
    const p2 = await preload(handle, player, 'P2');
    await expect.poll(site.cids).toEqual(['A', 'P1', 'P2']);
    site.give('P2');
    await take(player, p2);
    await requestLicense(player, engineOf(player));
    expect(h.seen.license.map((l) => l.header)).toEqual(['token-A', 'token-A', 'token-P2']);
  });

  test('a request of an engine nobody named goes with contentId, never with the load of another asset', async () => {
    const { site, player, handle, play } = await playerWithSite();
    play(handle, 'A');
    await expect.poll(site.cids).toEqual(['A']);
    site.give('A');
    await requestLicense(player);
    // A preload's engine asking before any load took it (a live manifest's new key): named nothing.
    const preloading = requestLicense(storageOf(player), { context: { isPreload: true } });
    await expect.poll(site.cids).toEqual(['A', 'movie-1']);
    site.give('movie-1');
    await preloading;
    expect(h.seen.license.map((l) => l.header)).toEqual(['token-A', 'token-movie-1']);
  });
});

describe('two Storage downloads at once', () => {
  test("each download's license requests carry its own cid, whichever asks first", async () => {
    const { site, player, handle, play } = await playerWithSite();
    play(handle, 'A');
    await expect.poll(site.cids).toEqual(['A']);
    site.give('A');
    const storage = new shaka.offline.Storage(player);
    const store = (cid: string) => storeOn(player, handle, cid, new Promise<void>(noop));
    const d1 = store('D1');
    const d2 = store('D2');
    await expect.poll(() => site.cids().sort()).toEqual(['A', 'D1', 'D2']);
    site.give('D1');
    site.give('D2');
    await requestLicense(storage, d2);
    await requestLicense(storage, d1);
    await requestLicense(player);
    expect(h.seen.license.map((l) => l.header)).toEqual(['token-D2', 'token-D1', 'token-A']);
    await storage.destroy();
  });
});

describe('a Storage removal: its release carries the token of what it releases', () => {
  test('auth.remove(B, …) while A plays: the release goes with B', async () => {
    const { site, player, handle, play } = await playerWithSite();
    play(handle, 'A');
    await expect.poll(site.cids).toEqual(['A']);
    site.give('A');
    await requestLicense(player);
    const storage = new shaka.offline.Storage(player);
    let done: () => void = noop;
    handle.remove('B', new Promise<void>((resolve) => (done = resolve)));
    const release = requestLicense(storage, { licenseRequestType: 'license-release' });
    await expect.poll(site.cids).toEqual(['A', 'B']);
    site.give('B');
    await release;
    expect(h.seen.license.map((l) => l.header)).toEqual(['token-A', 'token-B']);
    // Two removals at once: Shaka does not say whose release it is, and nothing is guessed.
    handle.remove('C', new Promise<void>(noop));
    const error = await rejection(
      requestLicense(storage, { licenseRequestType: 'license-release', maxAttempts: 1 }),
    );
    expect(findLicenseAuthError(error)?.message).toMatch(/several removals.*remove one at a time/);
    done();
    await storage.destroy();
  });
});

test("a persistent session released after its load ended carries that load's cid", async () => {
  const { site, player, handle, play } = await playerWithSite();
  play(handle, 'A');
  await expect.poll(site.cids).toEqual(['A']);
  site.give('A');
  const engineA = { keySystem: 'com.widevine.alpha' } as Shaka.default.extern.DrmInfo;
  player.drmInfo = () => engineA;
  await requestLicense(player, { drmInfo: engineA, sessionType: 'persistent-license' });
  play(handle, 'B');
  await expect.poll(site.cids).toEqual(['A', 'B']);
  site.give('B');
  player.drmInfo = () => ({ keySystem: 'com.widevine.alpha' }) as Shaka.default.extern.DrmInfo;
  // A's engine releases its session (Shaka's unload): A's token, though A's load has ended.
  await requestLicense(player, { drmInfo: engineA, licenseRequestType: 'license-release' });
  expect(h.seen.license.map((l) => l.header)).toEqual(['token-A', 'token-A']);
});

describe('resetConfiguration()', () => {
  test("the handle's servers and failure callback are applied again; the app's are gone, as Shaka does", () => {
    const { player } = h.setup({ licenseServer: { 'com.widevine.alpha': LICENSE_URL } });
    player.configure({ drm: { servers: { 'com.microsoft.playready': `${SITE}/app-license` } } });
    const ours = player.getConfiguration().drm.failureCallback;
    player.resetConfiguration();
    expect(player.getConfiguration().drm.failureCallback).toBe(ours);
    expect(player.getConfiguration().drm.servers).toEqual({ 'com.widevine.alpha': LICENSE_URL });
  });
});
