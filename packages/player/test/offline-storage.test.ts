// shaka.offline.Storage downloads persistent licenses through a networking engine: the player's when
// built on a player, its own when built without one (storage.js constructor). Storing needs
// IndexedDB and EME, which happy-dom lacks: the license requests are sent as Storage's DRM engine
// sends them (persistent-license sessions), through the storage's own networking engine.
import { describe, expect, test } from 'vitest';
import { HttpResponse } from 'msw';
import { attachLicenseAuth, LicenseAuthError } from '../src/index.ts';
import {
  cors,
  LICENSE_URL,
  licenseServer,
  makePlayer,
  newSeen,
  preflight,
  rejection,
  requestLicense,
  server,
  shaka,
  TOKEN_URL,
  tokenEndpoint,
  useLicenseAuthHarness,
} from './harness.ts';

const h = useLicenseAuthHarness();
type Storage = InstanceType<typeof shaka.offline.Storage>;
const PERSISTENT = { sessionType: 'persistent-license' };

function storageWithoutPlayer(answers: Parameters<typeof h.setup>[1] = {}) {
  h.seen = newSeen();
  server.use(
    preflight,
    tokenEndpoint(h.seen, answers.token),
    licenseServer(h.seen, answers.license),
  );
  const storage: Storage = new shaka.offline.Storage();
  return storage;
}

describe('a Storage built on a player', () => {
  test('uses the player’s handle: its license request carries a fresh token, not one about to expire', async () => {
    let clock = 0;
    const { player } = h.setup({ now: () => clock });
    await requestLicense(player); // playback fetched token 1
    const storage = new shaka.offline.Storage(player);
    expect(storage.getNetworkingEngine()).toBe(player.getNetworkingEngine());
    clock = 50_000; // the user presses "download" 50 s later
    await requestLicense(storage, PERSISTENT);
    expect(h.seen.license.map((l) => l.header)).toEqual([
      'token-1-Widevine-movie-1',
      'token-2-Widevine-movie-1',
    ]);
    await storage.destroy();
  });

  test('a second handle on it is refused before anything is registered', async () => {
    const { player } = h.setup();
    const storage = new shaka.offline.Storage(player);
    const servers = { ...player.getConfiguration().drm.servers };
    const attach = () =>
      attachLicenseAuth(storage, {
        contentId: 'movie-1',
        tokenUrl: TOKEN_URL,
        licenseServer: 'http://localhost:9/other',
      });
    expect(attach).toThrow(LicenseAuthError);
    expect(attach).toThrow(/has a handle already.*Storage built on a player/);
    expect(player.getConfiguration().drm.servers).toEqual(servers);
    await requestLicense(storage, PERSISTENT);
    expect(h.seen.token).toHaveLength(1); // one set of filters: one token, one header
    await storage.destroy();
  });
});

describe('a Storage built without a player', () => {
  test('gets its own handle: servers configured, license requests carry the token', async () => {
    const storage = storageWithoutPlayer();
    const handle = attachLicenseAuth(storage, {
      contentId: 'movie-1',
      tokenUrl: TOKEN_URL,
      licenseServer: LICENSE_URL,
    });
    expect(storage.getConfiguration().drm.servers['com.widevine.alpha']).toBe(LICENSE_URL);
    const response = await requestLicense(storage, PERSISTENT);
    expect(new Uint8Array(response.data as ArrayBuffer)).toEqual(new Uint8Array([1, 2, 3]));
    expect(h.seen.license[0]?.header).toBe('token-1-Widevine-movie-1');
    handle.detach();
    expect(storage.getConfiguration().drm.servers).toEqual({});
    await requestLicense(storage, PERSISTENT);
    expect(h.seen.license[1]?.header).toBeNull();
    await storage.destroy();
  });

  test('a 7011 refusal of the download is answered with one fresh token', async () => {
    let clock = 0;
    const storage = storageWithoutPlayer({
      license: () =>
        h.seen.license.length === 1
          ? HttpResponse.json({ errorCode: '7011', message: 'expired' }, cors())
          : new HttpResponse(new Uint8Array([7]), cors()),
    });
    const handle = attachLicenseAuth(storage, {
      contentId: 'movie-1',
      tokenUrl: TOKEN_URL,
      now: () => clock,
    });
    const sent = h.record(handle, 'licenseRequestSent');
    const response = await requestLicense(storage, PERSISTENT);
    expect(new Uint8Array(response.data as ArrayBuffer)).toEqual(new Uint8Array([7]));
    expect(sent.map((s) => [s.refreshed, s.tokenSource])).toEqual([
      [false, 'network'],
      [true, 'network'],
    ]);
    handle.detach();
    await storage.destroy();
  });

  test('a refusal no token can fix reaches the app from the storage path too', async () => {
    const storage = storageWithoutPlayer({
      license: () => HttpResponse.json({ errorCode: '7001', message: 'no key' }, cors()),
    });
    const handle = attachLicenseAuth(storage, { contentId: 'movie-1', tokenUrl: TOKEN_URL });
    const cause = h.filterError(await rejection(requestLicense(storage, PERSISTENT)));
    expect(cause).toMatchObject({ code: 'LICENSE_SERVICE_ERROR', errorCode: '7001' });
    handle.detach();
    await storage.destroy();
  });

  test('a destroyed Storage is refused with INVALID_OPTIONS', async () => {
    const storage = new shaka.offline.Storage();
    await storage.destroy();
    expect(() => attachLicenseAuth(storage, { contentId: 'c', tokenUrl: TOKEN_URL })).toThrow(
      'player must be a shaka.Player or shaka.offline.Storage that is not destroyed',
    );
  });
});

test('attaching again after detach() works (one handle at a time per networking engine)', async () => {
  const player = makePlayer();
  h.players.push(player);
  attachLicenseAuth(player, { contentId: 'c', tokenUrl: TOKEN_URL }).detach();
  expect(() => attachLicenseAuth(player, { contentId: 'c', tokenUrl: TOKEN_URL })).not.toThrow();
});
