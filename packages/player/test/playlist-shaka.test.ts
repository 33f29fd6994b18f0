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
    handle.store('S', { promise: new Promise<void>((resolve) => (finish = resolve)) });
    const download = requestLicense(storage);
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
    handle.store('A', new Promise<void>(noop));
    const download = requestLicense(storage);
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

describe("Shaka's preload", () => {
  test("the preload's prefetch and license requests use the cid named for it, the playing load keeps its own", async () => {
    const { site, player, handle, play } = await playerWithSite();
    play(handle, 'A');
    await expect.poll(site.cids).toEqual(['A']);
    site.give('A');
    handle.preload('P', Promise.resolve());
    await expect.poll(site.cids).toEqual(['A', 'P']);
    site.give('P');
    await requestLicense(player, { context: { isPreload: true } });
    // A later license request of what plays now (a renewal would fetch a fresh token): still A.
    await requestLicense(player, { sessionId: 'next-key' });
    expect(h.seen.license.map((l) => l.header)).toEqual(['token-P', 'token-A']);
  });
});

test('a preloaded title the player then plays: its session becomes the load, which the next load ends', async () => {
  const { site, player, handle, play, reached } = await playerWithSite();
  play(handle, 'A');
  await expect.poll(site.cids).toEqual(['A']);
  site.give('A');
  // The preload's DRM engine, whose info the player reports once player.load() took it.
  const drmInfo = { keySystem: 'com.widevine.alpha' } as Shaka.default.extern.DrmInfo;
  handle.preload('P', Promise.resolve());
  await expect.poll(site.cids).toEqual(['A', 'P']);
  site.give('P');
  await requestLicense(player, { drmInfo, context: { isPreload: true } });
  player.drmInfo = () => drmInfo;
  // A later request of the preloaded title, now playing: still P, and now the player's load.
  await requestLicense(player, { drmInfo, sessionId: 'next-key' });
  expect(h.seen.license.map((l) => l.header)).toEqual(['token-P', 'token-P']);
  // The next load ends it: a request of P's still waiting for a token is dropped.
  handle.load('A');
  // Its PlayReady request (the same DRM engine) waits for a token of its own.
  drmInfo.keySystem = 'com.microsoft.playready';
  const stale = rejection(requestLicense(player, { drmInfo }));
  await expect.poll(reached).toBe(3);
  void player.load(`${SITE}/A.mpd`).catch(noop);
  expect(findLicenseAuthError(await stale)?.code).toBe('ABORTED');
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
