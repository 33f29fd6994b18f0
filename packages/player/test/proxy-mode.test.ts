// Proxy mode (`licenseProxy`, issue #26) on every adapter, against site-kit's real createLicenseProxy
// in front of the emulator's real checks (the msw kit: proxyHandlers + licenseServiceHandlers): no
// token in the page, the proxy's URL with ?drmType=&cid=, the page's cookies, the service's
// refusals as they come without a proxy, and the proxy's own failures as typed errors.
import { licenseServiceHandlers, proxyHandlers } from '@multidrm/emulator/msw';
import type { LicenseProxyOptions } from '@multidrm/site-kit';
import * as dashjs from 'dashjs';
import type { LicenseRequest } from 'dashjs';
import Hls from 'hls.js';
import { http, HttpResponse } from 'msw';
import { setupServer } from 'msw/node';
import videojsModule from 'video.js';
import 'videojs-contrib-eme';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { attachLicenseAuth as attachToDash } from '../src/dash/index.ts';
import type { EngineEvents } from '../src/engine/events.ts';
import { attachLicenseAuth as attachToHls } from '../src/hls/index.ts';
import {
  attachLicenseAuth as attachToShaka,
  findLicenseAuthError,
  LicenseAuthError,
  LicenseServiceError,
  TokenFetchError,
  type EngineOptions,
  type FetchFunction,
} from '../src/index.ts';
import { attachLicenseAuth as attachToVideoJs, type VideoJsPlayer } from '../src/videojs/index.ts';
import { shaka } from './harness.ts';
import { SITE } from './http-mocks.ts';

const videojs = videojsModule as unknown as typeof videojsModule.default;
videojs.log.level('off');

const CID = 'movie-1';
const KID = '00112233445566778899aabbccddeeff';
const KEY = 'ffeeddccbbaa99887766554433221100';
const site = {
  siteId: 'PROXY',
  siteKey: 'proxy-site-key-0123456789abcdefg',
  accessKey: 'proxy-key',
};
const b64url = (hex: string) => Buffer.from(hex, 'hex').toString('base64url');
/** The ClearKey challenge a browser's CDM makes for the key. */
const challenge = () =>
  new TextEncoder().encode(JSON.stringify({ kids: [b64url(KID)], type: 'temporary' }));

const service = licenseServiceHandlers({
  sites: [site],
  keys: { [CID]: { kid: KID, key: KEY } },
});
// The site's decision, per test: allow by default.
let decide: LicenseProxyOptions['authorize'] = () => ({ allow: true, userId: 'member-1' });
const proxy = proxyHandlers({
  site,
  licenseUrl: service.licenseUrl,
  header: service.config.customDataHeader,
  // On the page's own origin: happy-dom sends no Origin header, so a cross-origin preflight would
  // be refused (the real-browser tests in test/e2e/adapters/proxy.test.ts run the proxy's CORS).
  baseUrl: SITE,
  cors: { origins: [SITE] },
  authorize: (request, asked) => decide(request, asked),
});
const PROXY = proxy.proxyUrl;
const server = setupServer(...service, ...proxy);

/** Every request msw saw: the player's to the proxy, and the proxy's to the service. */
const requests: Array<{ method: string; url: string; token: string | null }> = [];
server.events.on('request:start', ({ request }) => {
  requests.push({
    method: request.method,
    url: request.url,
    token: request.headers.get(service.config.customDataHeader),
  });
});
const teardown: Array<() => void> = [];
beforeAll(() => server.listen({ onUnhandledFrame: 'error' }));
afterEach(() => {
  server.resetHandlers();
  service.faults.clear();
  decide = () => ({ allow: true, userId: 'member-1' });
  requests.length = 0;
  for (const undo of teardown.splice(0)) undo();
});
afterAll(() => server.close());

/** What the service decided on license requests, in order. */
const verdicts = () =>
  service.events
    .recent()
    .flatMap((e) =>
      e.type === 'license-issued' ? ['issued'] : e.type === 'license-denied' ? [e.errorCode] : [],
    );
const sentTo = (url: string) => requests.filter((r) => r.url.startsWith(url));

// ClearKey stands in for Widevine here (drm_type Widevine, as in the real-browser tests).
const BASE: EngineOptions = {
  contentId: CID,
  licenseProxy: PROXY,
  drmTypes: { 'org.w3.clearkey': 'Widevine' },
  retry: { baseDelayMs: 1 },
};

interface Driven {
  on: <K extends keyof EngineEvents>(name: K, listener: (e: EngineEvents[K]) => void) => unknown;
  /** One license request for the sample's key, as the player makes it: the license, or the error. */
  ask(): Promise<Uint8Array>;
  /** The URL and cookie setting of each license request as it went out. */
  sent: Array<[string, unknown]>;
}
type Driver = (options: EngineOptions) => Driven;

/** A `fetch` that records what the adapters that send requests themselves asked for. */
function recordingFetch(sent: Driven['sent']): FetchFunction {
  return (url, init) => {
    sent.push([url, init.credentials]);
    return fetch(url, init);
  };
}
const bytesOf = (data: ArrayBuffer | ArrayBufferView) =>
  new Uint8Array(data instanceof ArrayBuffer ? data : data.buffer);

const DRIVERS: Record<'shaka' | 'hls' | 'dash' | 'videojs', Driver> = {
  shaka(options) {
    const player = new shaka.Player();
    teardown.push(() => void player.destroy());
    const auth = attachToShaka(player, { ...options, autoPrefetch: false });
    const sent: Driven['sent'] = [];
    const net = player.getNetworkingEngine()!;
    const LICENSE = shaka.net.NetworkingEngine.RequestType.LICENSE;
    // After the handle's filter: the request as it goes out.
    net.registerRequestFilter((type, request) => {
      if (type === LICENSE) sent.push([request.uris[0]!, request.allowCrossSiteCredentials]);
    });
    const ask = async () => {
      // Shaka's DRM engine sends to the configured server: the proxy, which the handle set.
      const server = player.getConfiguration().drm.servers['org.w3.clearkey']!;
      const request = shaka.net.NetworkingEngine.makeRequest([server], {
        ...shaka.net.NetworkingEngine.defaultRetryParameters(),
        baseDelay: 1,
        fuzzFactor: 0,
      });
      request.method = 'POST';
      request.licenseRequestType = 'license-request';
      request.body = challenge();
      request.drmInfo = { keySystem: 'org.w3.clearkey' } as typeof request.drmInfo;
      const response = await net.request(LICENSE, request).promise;
      return bytesOf(response.data);
    };
    return { on: auth.on, ask, sent };
  },
  hls(options) {
    const hls = new Hls();
    teardown.push(() => hls.destroy());
    const sent: Driven['sent'] = [];
    const auth = attachToHls(hls, { ...options, fetch: recordingFetch(sent) });
    const eme = (
      hls as unknown as {
        emeController: {
          requestLicense(context: object, key: object, challenge: Uint8Array): Promise<ArrayBuffer>;
        };
      }
    ).emeController;
    const uri = 'data:text/plain;base64,ABEiM0RVZneImaq7zN3u/w==';
    const ask = async () =>
      bytesOf(
        await eme.requestLicense(
          {
            keySystem: 'org.w3.clearkey',
            mediaKeysSession: {},
            keyRequests: { [uri]: { requestErrors: [], status: 'license-request' } },
          },
          { uri, keyFormat: 'org.w3.clearkey' },
          challenge(),
        ),
      );
    return { on: auth.on, ask, sent };
  },
  dash(options) {
    const player = dashjs.MediaPlayer().create();
    const filters: Array<(request: LicenseRequest) => Promise<unknown>> = [];
    const register = player.registerLicenseRequestFilter.bind(player);
    player.registerLicenseRequestFilter = (filter) => {
      filters.push(filter as (typeof filters)[number]);
      register(filter);
    };
    const sent: Driven['sent'] = [];
    const auth = attachToDash(player, { ...options, fetch: recordingFetch(sent) });
    teardown.push(() => auth.detach());
    // dash.js announces the key system it chose (the proxy serves every one).
    player.trigger(
      'public_keySystemSelected' as never,
      { data: { keySystem: { systemString: 'org.w3.clearkey' } } },
      {},
    );
    // dash.js's protection controller: the filters in turn, then its request (a data: URL here);
    // a failure is the player's error event (the filter never settles).
    const ask = () =>
      new Promise<Uint8Array>((resolve, reject) => {
        player.on('error' as never, (event: { error: { data: unknown } }) =>
          reject(event.error.data),
        );
        const request: LicenseRequest = {
          url: PROXY,
          method: 'POST',
          responseType: 'arraybuffer',
          headers: {},
          withCredentials: false,
          messageType: 'license-request',
          sessionId: 'session-1',
          data: challenge().buffer,
        };
        void (async () => {
          for (const filter of filters) await filter(request);
          const base64 = request.url.slice(request.url.indexOf(',') + 1);
          resolve(new Uint8Array(Buffer.from(base64, 'base64')));
        })();
      });
    return { on: auth.on, ask, sent };
  },
  videojs(options) {
    const video = document.createElement('video');
    document.body.append(video);
    const player = videojs(video);
    teardown.push(() => player.dispose());
    const sent: Driven['sent'] = [];
    const auth = attachToVideoJs(player as unknown as VideoJsPlayer, {
      ...options,
      fetch: recordingFetch(sent),
    });
    // What videojs-contrib-eme calls for a key message: getLicense(emeOptions, message, callback).
    const ask = () =>
      new Promise<Uint8Array>((resolve, reject) =>
        auth.keySystems['org.w3.clearkey']!.getLicense(
          {},
          challenge().buffer,
          (error: unknown, license?: Uint8Array) =>
            error ? reject(error) : resolve(license as Uint8Array),
        ),
      );
    return { on: auth.on, ask, sent };
  },
};
const ADAPTERS = Object.keys(DRIVERS) as Array<keyof typeof DRIVERS>;

/** The error the app gets from the player, as this package's error. */
async function failure(driven: Driven): Promise<LicenseAuthError> {
  const error = await driven.ask().then(
    () => undefined,
    (e: unknown) => e,
  );
  const found = findLicenseAuthError(error);
  expect(found, String(error)).toBeInstanceOf(LicenseAuthError);
  return found as LicenseAuthError;
}

function record<K extends keyof EngineEvents>(driven: Driven, name: K): Array<EngineEvents[K]> {
  const seen: Array<EngineEvents[K]> = [];
  driven.on(name, (e) => seen.push(e));
  return seen;
}

describe.each(ADAPTERS)('the %s adapter in proxy mode', (adapter) => {
  const drive = (options: Partial<EngineOptions> = {}) => DRIVERS[adapter]({ ...BASE, ...options });

  test('gets the license through the proxy: no token fetched or sent by the page, the proxy URL with drmType and cid, the cookies', async () => {
    const driven = drive();
    const tokens = record(driven, 'tokenRequested');
    const sent = record(driven, 'licenseRequestSent');
    const before = verdicts().length;
    const license = JSON.parse(new TextDecoder().decode(await driven.ask())) as {
      keys: Array<{ kid: string; k: string }>;
    };
    expect(license.keys).toEqual([expect.objectContaining({ kid: b64url(KID), k: b64url(KEY) })]);
    expect(verdicts().slice(before)).toEqual(['issued']);
    const asked = `${PROXY}?drmType=widevine&cid=${CID}`;
    // Cookies: Shaka's allowCrossSiteCredentials, the others' fetch credentials.
    expect(driven.sent).toEqual([[asked, adapter === 'shaka' ? true : 'include']]);
    // The page asked the proxy only, without a token; the proxy asked the service, with its own.
    expect(requests.filter((r) => r.method !== 'OPTIONS').map((r) => [r.url, !!r.token])).toEqual([
      [asked, false],
      [service.licenseUrl, true],
    ]);
    expect(tokens).toEqual([]);
    expect(sent.map((s) => [s.tokenSource, s.refreshed, s.cid])).toEqual([['proxy', false, CID]]);
  });

  test('the cid goes in the query encoded', async () => {
    const driven = DRIVERS[adapter]({ ...BASE, contentId: 'a b&c' });
    await failure(driven);
    expect(driven.sent[0]?.[0]).toBe(`${PROXY}?drmType=widevine&cid=a+b%26c`);
  });

  test("a user the site's authorize refuses: a TokenFetchError with the site's status, and the service never asked", async () => {
    decide = () => ({ allow: false, status: 403, reason: 'Not in your plan.' });
    const driven = drive();
    const sent = record(driven, 'licenseRequestSent');
    const error = await failure(driven);
    expect(error).toBeInstanceOf(TokenFetchError);
    expect(error).toMatchObject({
      code: 'TOKEN_FETCH_FAILED',
      status: 403,
      reason: 'SITE_REFUSED: Not in your plan.',
    });
    expect(error.message).toContain('the user must be signed in and allowed to play it');
    expect(sentTo(service.licenseUrl)).toEqual([]);
    // The site's decision is not sent again (a 401/403 re-send only helps a token).
    expect(sent.map((s) => s.refreshed)).toEqual([false]);
  });

  test('7011 from the service: sent once more (the proxy makes a fresh token), then the license', async () => {
    service.faults.set([{ fault: 'token-expired', times: 1 }]);
    const driven = drive();
    const sent = record(driven, 'licenseRequestSent');
    const answered = record(driven, 'licenseAnswered');
    const before = verdicts().length;
    await driven.ask();
    expect(verdicts().slice(before)).toEqual(['7011', 'issued']);
    expect(sent.map((s) => [s.tokenSource, s.refreshed])).toEqual([
      ['proxy', false],
      ['proxy', true],
    ]);
    expect((answered[0]?.error as LicenseServiceError).errorCode).toBe('7011');
    // Two tokens, both the proxy's.
    expect(sentTo(service.licenseUrl).map((r) => !!r.token)).toEqual([true, true]);
  });

  test('7011 again after the re-send: the LicenseServiceError of token mode, once re-sent only', async () => {
    service.faults.set([{ fault: 'token-expired' }]);
    const driven = drive();
    const error = await failure(driven);
    expect(error).toBeInstanceOf(LicenseServiceError);
    expect((error as LicenseServiceError).errorCode).toBe('7011');
    expect(error.message).toContain('again with a fresh token');
    expect(sentTo(service.licenseUrl)).toHaveLength(2);
  });

  test("8002 relayed from the service: the LicenseServiceError with the site's code, not re-sent", async () => {
    service.faults.set([{ fault: 'refuse', reason: 'GATEWAY_DENIED' }]);
    const driven = drive();
    const error = await failure(driven);
    expect(error).toBeInstanceOf(LicenseServiceError);
    // The emulator's refusal names no real site: its code table's placeholder JSON is the message.
    expect(error).toMatchObject({ errorCode: '8002', siteErrorCode: '<site code>' });
    expect(sentTo(service.licenseUrl)).toHaveLength(1);
  });

  test("a service refusal relayed with a 5xx status: the service's LicenseServiceError, not the proxy's failure", async () => {
    // The proxy relays the service's status and body unchanged; only `{code,message}` is its own.
    server.use(
      http.post(service.licenseUrl, () =>
        HttpResponse.json({ errorCode: '9999', message: 'Internal error' }, { status: 503 }),
      ),
    );
    const driven = drive({ retry: { maxAttempts: 1 } });
    const error = await failure(driven);
    expect(error).toBeInstanceOf(LicenseServiceError);
    expect((error as LicenseServiceError).errorCode).toBe('9999');
    expect(error.message).not.toContain('undefined');
  });

  test("the proxy's own failure (SITE_ERROR, HTTP 500): a TokenFetchError naming the proxy's code and sentence", async () => {
    decide = () => {
      throw new Error('the session store is down');
    };
    const driven = drive({ retry: { maxAttempts: 1 } });
    const error = await failure(driven);
    expect(error).toBeInstanceOf(TokenFetchError);
    expect(error).toMatchObject({
      status: 500,
      reason: 'SITE_ERROR: The site could not decide; try again later.',
    });
    expect(error.message).toContain("check the site's logs");
    // The site's own reason stays with the site.
    expect(error.message).not.toContain('session store');
    expect(sentTo(service.licenseUrl)).toEqual([]);
  });

  test("the proxy's own failure about the request (BAD_CID, HTTP 400): LICENSE_REQUEST_FAILED with the proxy's code", async () => {
    const driven = DRIVERS[adapter]({ ...BASE, contentId: 'x'.repeat(201) });
    const error = await failure(driven);
    expect(error).not.toBeInstanceOf(TokenFetchError);
    expect(error.code).toBe('LICENSE_REQUEST_FAILED');
    expect(error.message).toMatch(/answered HTTP 400 \(BAD_CID: cid: must be/);
    expect(sentTo(service.licenseUrl)).toEqual([]);
  });

  test('options that mix proxy mode with a token source, a license server or a header are refused', () => {
    for (const [extra, named] of [
      [{ tokenUrl: '/token' }, 'give only one of tokenUrl, licenseProxy'],
      [{ getCustomData: async () => 'x' }, 'give only one of getCustomData, licenseProxy'],
      [
        { licenseServer: 'https://license.example' },
        'give only one of licenseProxy, licenseServer',
      ],
      [{ header: 'x-token' }, 'give only one of licenseProxy, header'],
      [{ licenseProxy: '' }, 'licenseProxy must be a non-empty string'],
    ] as const) {
      expect(() => drive(extra as Partial<EngineOptions>)).toThrow(
        expect.objectContaining({
          code: 'INVALID_OPTIONS',
          message: expect.stringContaining(named),
        }),
      );
    }
  });
});

describe('certificates through the proxy', () => {
  const CERT = { widevine: `${PROXY}?drmType=widevine`, fairplay: `${PROXY}?drmType=fairplay` };

  test('Shaka: fairplay: {} and widevine: {} name the proxy as their certificate URI', () => {
    const player = new shaka.Player();
    teardown.push(() => void player.destroy());
    attachToShaka(player, { ...BASE, fairplay: {}, widevine: {} });
    const { advanced } = player.getConfiguration().drm;
    expect(advanced?.['com.apple.fps']?.serverCertificateUri).toBe(CERT.fairplay);
    expect(advanced?.['com.widevine.alpha']?.serverCertificateUri).toBe(CERT.widevine);
  });

  test('hls.js and dash.js: the proxy as the certificate URL of FairPlay and Widevine', () => {
    const hls = new Hls();
    teardown.push(() => hls.destroy());
    attachToHls(hls, { ...BASE, fairplay: {}, widevine: {} });
    expect(hls.config.drmSystems?.['com.apple.fps']?.serverCertificateUrl).toBe(CERT.fairplay);
    expect(hls.config.drmSystems?.['com.widevine.alpha']?.serverCertificateUrl).toBe(CERT.widevine);
    const player = dashjs.MediaPlayer().create();
    const data: unknown[] = [];
    const set = player.setProtectionData.bind(player);
    player.setProtectionData = (value) => {
      data.push(value);
      set(value);
    };
    const auth = attachToDash(player, { ...BASE, widevine: {} });
    teardown.push(() => auth.detach());
    expect(data[0]).toMatchObject({ 'com.widevine.alpha': { certUrls: [CERT.widevine] } });
  });

  test("video.js: the certificate is loaded from the proxy, which asks the service's certificate endpoint", async () => {
    const video = document.createElement('video');
    document.body.append(video);
    const player = videojs(video);
    teardown.push(() => player.dispose());
    const auth = attachToVideoJs(player as unknown as VideoJsPlayer, { ...BASE, widevine: {} });
    const certificate = await new Promise<Uint8Array>((resolve, reject) =>
      auth.keySystems['com.widevine.alpha']!.getCertificate!({}, (error, cert) =>
        error ? reject(error) : resolve(cert as Uint8Array),
      ),
    );
    expect(certificate.length).toBeGreaterThan(0);
    expect(requests.filter((r) => r.method === 'GET').map((r) => r.url)).toEqual([
      CERT.widevine,
      `${service.baseUrl}/ri/widevineCert.do?siteId=${site.siteId}`,
    ]);
  });

  test('without proxy mode, fairplay: {} still names no certificate (as before)', () => {
    const hls = new Hls();
    teardown.push(() => hls.destroy());
    attachToHls(hls, {
      contentId: CID,
      tokenUrl: '/token',
      licenseServer: 'http://127.0.0.1:1/license',
      fairplay: {},
    });
    expect(hls.config.drmSystems?.['com.apple.fps']?.serverCertificateUrl).toBeUndefined();
  });
});
