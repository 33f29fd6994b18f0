import axios from 'axios';
import { afterEach, describe, expect, test } from 'vitest';
import { http, HttpResponse, delay } from 'msw';
import {
  attachLicenseAuth,
  LicenseAuthError,
  LicenseServiceError,
  TokenFetchError,
} from '../src/index.ts';
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
  SITE,
  TOKEN_URL,
  tokenEndpoint,
  useLicenseAuthHarness,
  videoElement,
  type Answers,
  type Player,
} from './harness.ts';

const h = useLicenseAuthHarness();
const { setup, record, filterError, players } = h;

describe('token mode over the default protocol', () => {
  test('a license request carries the token fetched with cid, drm_type and credentials', async () => {
    // happy-dom's network layer does not forward document.cookie, so credentials are checked on the
    // axios request itself (the browser end-to-end tests see the real cookie).
    const http = axios.create();
    const credentials: unknown[] = [];
    http.interceptors.request.use((config) => {
      credentials.push([config.method, config.withCredentials, config.headers['Content-Type']]);
      return config;
    });
    const { player } = setup({ axios: http });
    const response = await requestLicense(player);
    expect(new Uint8Array(response.data as ArrayBuffer)).toEqual(new Uint8Array([1, 2, 3]));
    expect(h.seen.token).toEqual([{ cid: 'movie-1', drm_type: 'Widevine' }]);
    expect(credentials).toEqual([['post', true, 'application/json']]);
    expect(h.seen.license[0]?.header).toBe('token-1-Widevine-movie-1');
    expect(h.seen.license[0]?.body).toEqual(new Uint8Array([9, 9, 9]));
  });

  test('the header is set on every attempt while the token is fetched once', async () => {
    const { player } = setup(
      {},
      {
        license: () =>
          h.seen.license.length === 1
            ? new HttpResponse('busy', cors({ status: 503 }))
            : new HttpResponse(new Uint8Array([7]), cors()),
      },
    );
    await requestLicense(player);
    expect(h.seen.license.map((l) => l.header)).toEqual([
      'token-1-Widevine-movie-1',
      'token-1-Widevine-movie-1',
    ]);
    expect(h.seen.token).toHaveLength(1);
  });

  test('a custom header name is used', async () => {
    const { player } = setup({ header: 'x-other-header' });
    const headers: Array<string | null> = [];
    server.use(
      http.post(LICENSE_URL, ({ request }) => {
        headers.push(request.headers.get('x-other-header'));
        return new HttpResponse(new Uint8Array([1]), cors());
      }),
    );
    await requestLicense(player);
    expect(headers).toEqual(['token-1-Widevine-movie-1']);
  });
});

describe('key systems', () => {
  test.each([
    ['com.widevine.alpha', 'Widevine'],
    ['com.microsoft.playready', 'PlayReady'],
    ['com.microsoft.playready.recommendation', 'PlayReady'],
    ['com.microsoft.playready.recommendation.3000', 'PlayReady'],
    ['com.chromecast.playready', 'PlayReady'],
    ['org.w3.clearkey', 'Widevine'],
  ])('%s requests are sent with drm_type %s and the header', async (keySystem, drmType) => {
    const { player } = setup();
    await requestLicense(player, { keySystem });
    expect(h.seen.token.map((t) => t.drm_type)).toEqual([drmType]);
    expect(h.seen.license[0]?.header).toBe(`token-1-${drmType}-movie-1`);
  });

  test('drmTypes overrides the map, e.g. ClearKey sent as PlayReady', async () => {
    const { player } = setup({ drmTypes: { 'org.w3.clearkey': 'PlayReady' } });
    await requestLicense(player, { keySystem: 'org.w3.clearkey' });
    expect(h.seen.token[0]?.drm_type).toBe('PlayReady');
    expect(h.seen.license[0]?.header).toBe('token-1-PlayReady-movie-1');
  });

  test('an unknown key system and data: licenses are left alone', async () => {
    const { player } = setup();
    server.use(http.post(`${SITE}/other-license`, () => HttpResponse.text('ok')));
    await requestLicense(player, {
      keySystem: 'com.example.unknown',
      uri: `${SITE}/other-license`,
    });
    const clearKeyLicense = 'data:application/json;base64,' + btoa('{"keys":[]}');
    const response = await requestLicense(player, {
      keySystem: 'org.w3.clearkey',
      uri: clearKeyLicense,
    });
    expect(new TextDecoder().decode(response.data as ArrayBuffer)).toBe('{"keys":[]}');
    expect(h.seen.token).toEqual([]);
  });

  test('requests other than licenses pass through the filters synchronously', async () => {
    h.seen = newSeen();
    server.use(preflight, tokenEndpoint(h.seen));
    const player = makePlayer();
    players.push(player);
    const net = player.getNetworkingEngine()!;
    const requestFilters: Array<Parameters<typeof net.registerRequestFilter>[0]> = [];
    const responseFilters: Array<Parameters<typeof net.registerResponseFilter>[0]> = [];
    const registerRequest = net.registerRequestFilter.bind(net);
    const registerResponse = net.registerResponseFilter.bind(net);
    net.registerRequestFilter = (f) => (requestFilters.push(f), registerRequest(f));
    net.registerResponseFilter = (f) => (responseFilters.push(f), registerResponse(f));
    attachLicenseAuth(player, { contentId: 'movie-1', tokenUrl: TOKEN_URL });
    const T = shaka.net.NetworkingEngine.RequestType;
    const request = shaka.net.NetworkingEngine.makeRequest(
      [`${SITE}/seg.mp4`],
      shaka.net.NetworkingEngine.defaultRetryParameters(),
    );
    for (const type of [T.MANIFEST, T.SEGMENT, T.KEY, T.TIMING, T.APP, T.SERVER_CERTIFICATE]) {
      expect(requestFilters[0]!(type, request)).toBeUndefined();
      const response = {
        data: new Uint8Array([1]),
        headers: {},
        uri: `${SITE}/seg.mp4`,
        originalUri: `${SITE}/seg.mp4`,
        originalRequest: request,
      };
      expect(responseFilters[0]!(type, response)).toBeUndefined();
      expect(response.data).toEqual(new Uint8Array([1]));
    }
    expect(request.headers).toEqual({});
    expect(h.seen.token).toEqual([]);
  });
});

describe('token reuse and renewal', () => {
  test('concurrent license requests share one token fetch', async () => {
    const { player, handle } = setup(
      {},
      {
        token: async () => {
          await delay(30);
          return HttpResponse.text('slow-token');
        },
      },
    );
    const sent = record(handle, 'licenseRequestSent');
    await Promise.all(Array.from({ length: 5 }, () => requestLicense(player)));
    expect(h.seen.token).toHaveLength(1);
    expect(h.seen.license.map((l) => l.header)).toEqual(Array(5).fill('slow-token'));
    expect(sent.map((e) => e.tokenSource).sort()).toEqual([
      'network',
      'shared',
      'shared',
      'shared',
      'shared',
    ]);
  });

  test('a token is reused while enough of its life is left, then fetched again (monotonic clock)', async () => {
    let clock = 1000;
    const { player, handle } = setup({ now: () => clock });
    const sources = record(handle, 'licenseRequestSent');
    await requestLicense(player);
    clock += 39_000;
    await requestLicense(player, { sessionId: 'next-key' });
    clock += 2_000; // 41 s after arrival: less than 20 s of its 60 s left
    await requestLicense(player, { sessionId: 'next-key' });
    clock += 1_000;
    await requestLicense(player, { licenseRequestType: 'license-release' });
    expect(h.seen.license.map((l) => l.header)).toEqual([
      'token-1-Widevine-movie-1',
      'token-1-Widevine-movie-1',
      'token-2-Widevine-movie-1',
      'token-2-Widevine-movie-1',
    ]);
    expect(sources.map((s) => [s.tokenSource, s.licenseRequestType])).toEqual([
      ['network', 'license-request'],
      ['cache', 'license-request'],
      ['network', 'license-request'],
      ['cache', 'license-release'],
    ]);
  });

  test('tokens are kept per cid and drm_type', async () => {
    const { player } = setup({
      getContentId: (drmInfo) => (drmInfo.keySystem.includes('playready') ? 'b' : 'a'),
      contentId: undefined,
    });
    await requestLicense(player);
    await requestLicense(player, { keySystem: 'com.microsoft.playready' });
    await requestLicense(player);
    expect(h.seen.token.map((t) => `${t.drm_type}/${t.cid}`)).toEqual([
      'Widevine/a',
      'PlayReady/b',
    ]);
  });

  test('a retry after a 403 gets a fresh token', async () => {
    const { player } = setup(
      {},
      {
        license: () =>
          h.seen.license.length === 1
            ? HttpResponse.json(
                { error_code: 'TOKEN_EXPIRED', message: 'token too old' },
                cors({ status: 403 }),
              )
            : new HttpResponse(new Uint8Array([5]), cors()),
      },
    );
    await requestLicense(player);
    expect(h.seen.license.map((l) => l.header)).toEqual([
      'token-1-Widevine-movie-1',
      'token-2-Widevine-movie-1',
    ]);
    // The fresh token is the one later requests reuse.
    await requestLicense(player);
    expect(h.seen.license[2]?.header).toBe('token-2-Widevine-movie-1');
    expect(h.seen.token).toHaveLength(2);
  });

  test('concurrent retries after 403 share one fresh token', async () => {
    const { player } = setup(
      {},
      {
        license: ({ request }) =>
          request.headers.get('x-drm-custom-data') === 'token-1-Widevine-movie-1'
            ? new HttpResponse(null, cors({ status: 403 }))
            : new HttpResponse(new Uint8Array([5]), cors()),
      },
    );
    await Promise.all([requestLicense(player), requestLicense(player), requestLicense(player)]);
    expect(h.seen.token).toHaveLength(2);
    expect(h.seen.license.filter((l) => l.header === 'token-2-Widevine-movie-1')).toHaveLength(3);
  });

  test('a second 401 after the fresh token is final: no further attempt is sent', async () => {
    const { player } = setup(
      {},
      {
        license: () =>
          HttpResponse.json(
            { error_code: 'HASH_MISMATCH', message: 'bad hash' },
            cors({ status: 401 }),
          ),
      },
    );
    const cause = filterError(await rejection(requestLicense(player, { maxAttempts: 5 })));
    expect(cause).toBeInstanceOf(LicenseServiceError);
    expect((cause as LicenseServiceError).errorCode).toBe('HASH_MISMATCH');
    expect(h.seen.license).toHaveLength(2);
    expect(h.seen.token).toHaveLength(2);
  });
});

describe('prefetch', () => {
  test('prefetch() fetches ahead so the license request does not wait for the site', async () => {
    const { player, handle } = setup();
    const sent = record(handle, 'licenseRequestSent');
    expect(await handle.prefetch({ keySystem: 'com.widevine.alpha' })).toBe(true);
    await requestLicense(player);
    expect(h.seen.token).toHaveLength(1);
    expect(sent[0]?.tokenSource).toBe('cache');
  });

  test('the player starting to load prefetches for its preferred key system', async () => {
    const { player, handle } = setup();
    player.configure({ drm: { preferredKeySystems: ['com.microsoft.playready'] } });
    const requested = record(handle, 'tokenRequested');
    server.use(http.get(`${SITE}/movie.mpd`, () => HttpResponse.text('<MPD/>')));
    await player.attach(videoElement());
    void player.load(`${SITE}/movie.mpd`).catch(() => undefined);
    await expect.poll(() => h.seen.token.length).toBe(1);
    expect(requested).toEqual([{ cid: 'movie-1', drmType: 'PlayReady', kind: 'token' }]);
  });

  test('a prefetch the site refused is not replayed: the license request asks the site again', async () => {
    // Two 503s at start-up: the prefetch's two attempts fail (no window), the license request's succeeds.
    let calls = 0;
    const flaky = () =>
      ++calls <= 2
        ? HttpResponse.text('busy', cors({ status: 503 }))
        : HttpResponse.text('token-after-503', cors());
    const { player, handle } = setup({ retry: { baseDelayMs: 1, windowMs: 0 } }, { token: flaky });
    const failed = record(handle, 'tokenFailed');
    await expect(handle.prefetch({ keySystem: 'com.widevine.alpha' })).rejects.toMatchObject({
      code: 'TOKEN_FETCH_FAILED',
      status: 503,
    });
    await requestLicense(player);
    expect(h.seen.token).toHaveLength(3);
    expect(failed).toHaveLength(1);
    expect(h.seen.license.map((l) => l.header)).toEqual(['token-after-503']);
  });

  test('prefetch() without a key system picks the only configured one the service knows', async () => {
    const { player, handle } = setup();
    player.configure({
      drm: { servers: { 'com.example.other-drm': LICENSE_URL, 'com.widevine.alpha': LICENSE_URL } },
    });
    expect(await handle.prefetch()).toBe(true);
    expect(h.seen.token).toEqual([{ cid: 'movie-1', drm_type: 'Widevine' }]);
  });

  describe('one licenseServer URL and no preferredKeySystems: the browser settles the first load', () => {
    // happy-dom has no EME: each test gives navigator the key systems of a browser, and takes them away.
    const withKeySystems = (supported: readonly string[]) =>
      Object.defineProperty(navigator, 'requestMediaKeySystemAccess', {
        configurable: true,
        value: async (keySystem: string) => {
          if (!supported.includes(keySystem)) throw new DOMException('no', 'NotSupportedError');
          return {};
        },
      });
    afterEach(() => {
      Reflect.deleteProperty(navigator, 'requestMediaKeySystemAccess');
    });
    const loading = async (player: Player) => {
      server.use(http.get(`${SITE}/movie.mpd`, () => HttpResponse.text('<MPD/>')));
      await player.attach(videoElement());
      void player.load(`${SITE}/movie.mpd`).catch(() => undefined);
    };

    test('the only configured key system the browser has is prefetched for on loading', async () => {
      withKeySystems(['com.widevine.alpha']);
      const { player, handle } = setup({ licenseServer: LICENSE_URL });
      const requested = record(handle, 'tokenRequested');
      await loading(player);
      await expect.poll(() => h.seen.token.length).toBe(1);
      expect(requested).toEqual([{ cid: 'movie-1', drmType: 'Widevine', kind: 'token' }]);
      expect(h.seen.license).toEqual([]);
    });

    test('several key systems the browser has: no prefetch, preferredKeySystems settles it', async () => {
      withKeySystems(['com.widevine.alpha', 'com.microsoft.playready']);
      const { player, handle } = setup({ licenseServer: LICENSE_URL });
      expect(await handle.prefetch()).toBe(false);
      player.configure({ drm: { preferredKeySystems: ['com.microsoft.playready'] } });
      expect(await handle.prefetch()).toBe(true);
      expect(h.seen.token).toEqual([{ cid: 'movie-1', drm_type: 'PlayReady' }]);
    });

    test('without EME, or when asking throws, nothing is fetched and nothing is thrown', async () => {
      expect('requestMediaKeySystemAccess' in navigator).toBe(false);
      const { player, handle } = setup({ licenseServer: LICENSE_URL });
      await loading(player);
      expect(await handle.prefetch()).toBe(false);
      Object.defineProperty(navigator, 'requestMediaKeySystemAccess', {
        configurable: true,
        value: () => {
          throw new TypeError('EME is off');
        },
      });
      const other = h.attach(h.setupPlayerOnly(), { licenseServer: LICENSE_URL });
      expect(await other.prefetch()).toBe(false);
      expect(h.seen.token).toEqual([]);
    });
  });

  test('prefetch without a known key system does nothing', async () => {
    const { handle } = setup();
    expect(await handle.prefetch()).toBe(false);
    expect(h.seen.token).toEqual([]);
  });
});

describe('timeouts and aborts', () => {
  const hanging: Answers = {
    // Answers only once the client gave up (or after 5 s), so nothing is left pending after a test.
    token: async ({ request }) => {
      await Promise.race([
        new Promise((r) => request.signal.addEventListener('abort', r)),
        delay(5000),
      ]);
      return HttpResponse.text('too late');
    },
  };

  test('a token that does not come in time fails with TOKEN_TIMEOUT', async () => {
    const { player } = setup({ tokenTimeoutMs: 150 }, hanging);
    const started = performance.now();
    const cause = filterError(await rejection(requestLicense(player)));
    expect(performance.now() - started).toBeLessThan(2000);
    expect(cause).toBeInstanceOf(TokenFetchError);
    expect((cause as TokenFetchError).code).toBe('TOKEN_TIMEOUT');
    expect((cause as TokenFetchError).message).toContain('raise tokenTimeoutMs');
    expect(h.seen.license).toEqual([]);
  });

  test('detach() aborts a token fetch under way', async () => {
    const { player, handle } = setup({ tokenTimeoutMs: 60_000 }, hanging);
    const pending = rejection(requestLicense(player));
    await expect.poll(() => h.seen.token.length).toBe(1);
    handle.detach();
    const cause = filterError(await pending);
    expect((cause as LicenseAuthError).code).toBe('ABORTED');
  });

  test('player.unload() aborts a token fetch under way', async () => {
    const { player } = setup({ tokenTimeoutMs: 60_000 }, hanging);
    const pending = rejection(requestLicense(player));
    await expect.poll(() => h.seen.token.length).toBe(1);
    await player.unload();
    const cause = filterError(await pending);
    expect((cause as LicenseAuthError).code).toBe('ABORTED');
    expect((cause as LicenseAuthError).message).toContain('unloaded');
  });

  test('getToken() receives the signal that detach() aborts', async () => {
    let signal: AbortSignal | undefined;
    h.seen = newSeen();
    server.use(preflight, licenseServer(h.seen));
    const player = makePlayer();
    players.push(player);
    const handle = attachLicenseAuth(player, {
      contentId: 'movie-1',
      getToken: (params) => {
        signal = params.signal;
        return new Promise(() => undefined);
      },
    });
    const pending = rejection(requestLicense(player));
    await expect.poll(() => signal).toBeDefined();
    handle.detach();
    expect(signal?.aborted).toBe(true);
    expect((filterError(await pending) as LicenseAuthError).code).toBe('ABORTED');
  });
});
