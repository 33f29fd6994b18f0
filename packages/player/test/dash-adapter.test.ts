// The dash.js adapter on a real dash.js 5.2 MediaPlayer (its protection data, filters and event
// bus), with msw as the site and the license server. dash.js runs its license request code only
// with EME, which happy-dom lacks: `dashLicenseRequest` below does what its ProtectionController
// does with a license request (filters in turn, then one XHR as the filters left the request), and
// the real-browser tests in test/e2e/adapters run the real thing.
import * as dashjs from 'dashjs';
import type { CertificateRequest, LicenseRequest, MediaPlayerClass } from 'dashjs';
import { http, HttpResponse } from 'msw';
import { afterAll, afterEach, beforeAll, describe, expect, test, vi } from 'vitest';
import {
  attachLicenseAuth,
  findLicenseAuthError,
  LicenseServiceError,
  type DashLicenseAuthOptions,
} from '../src/dash/index.ts';
import {
  cors,
  licenseServer,
  LICENSE_URL,
  newSeen,
  preflight,
  server,
  text,
  tokenEndpoint,
  TOKEN_URL,
  type Seen,
} from './http-mocks.ts';
import { slowSite } from './slow-site.ts';

beforeAll(() => server.listen({ onUnhandledFrame: 'error' }));
// dash.js's destroy() throws for a player that never had a view: the handles are detached instead.
const handles: Array<{ detach(): void }> = [];
afterEach(() => {
  vi.unstubAllGlobals();
  server.resetHandlers();
  for (const handle of handles.splice(0)) handle.detach();
});
afterAll(() => server.close());

const CLEARKEY_LICENSE = '{"keys":[{"kty":"oct","k":"AAAA","kid":"BBBB"}],"type":"temporary"}';
type Filter = (request: LicenseRequest) => Promise<unknown>;
type CertificateFilter = (request: CertificateRequest) => Promise<unknown>;

/**
 * dash.js 5.2's _issueLicenseRequest + _doLicenseRequest: filters in turn, then (with CMCD on) its
 * CMCD data on a copy of the request's URL and headers, assigned back, then the XHR.
 */
async function dashLicenseRequest(
  filters: Filter[],
  request: LicenseRequest,
  cmcd?: 'query' | 'headers',
) {
  for (const filter of filters) await filter(request);
  if (cmcd) {
    const url = new URL(request.url);
    const headers = { ...request.headers };
    if (cmcd === 'query') url.searchParams.set('CMCD', 'sid="s1",sn=1');
    else headers['CMCD-Session'] = 'sid="s1"';
    request.url = url.toString();
    request.headers = headers;
  }
  return new Promise<{ status: number; response: unknown; url: string }>((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open(request.method, request.url, true);
    xhr.responseType = request.responseType as XMLHttpRequestResponseType;
    xhr.withCredentials = request.withCredentials;
    for (const key in request.headers) xhr.setRequestHeader(key, request.headers[key]!);
    xhr.onload = () => resolve({ status: xhr.status, response: xhr.response, url: request.url });
    xhr.onerror = () => reject(new Error('xhr error'));
    xhr.send(request.data);
  });
}

function licenseRequest(init: Partial<LicenseRequest> = {}): LicenseRequest {
  return {
    url: LICENSE_URL,
    method: 'POST',
    responseType: 'arraybuffer',
    headers: {},
    withCredentials: false,
    messageType: 'license-request',
    sessionId: 'session-1',
    data: new Uint8Array([1, 2, 3]).buffer,
    ...init,
  };
}

function setup(
  options: Partial<DashLicenseAuthOptions> = {},
  license?: Parameters<typeof licenseServer>[1],
) {
  const seen: Seen = newSeen();
  server.use(
    preflight,
    tokenEndpoint(seen),
    licenseServer(seen, license ?? (() => new HttpResponse(CLEARKEY_LICENSE, cors()))),
  );
  const player = dashjs.MediaPlayer().create();
  const filters: Filter[] = [];
  const protectionData: unknown[] = [];
  const register = player.registerLicenseRequestFilter.bind(player);
  player.registerLicenseRequestFilter = (filter) => {
    filters.push(filter as Filter);
    register(filter);
  };
  const setProtectionData = player.setProtectionData.bind(player);
  player.setProtectionData = (data) => {
    protectionData.push(data);
    setProtectionData(data);
  };
  const certificateFilters: CertificateFilter[] = [];
  const registerCertificate = player.registerCertificateRequestFilter.bind(player);
  player.registerCertificateRequestFilter = (filter) => {
    certificateFilters.push(filter as CertificateFilter);
    registerCertificate(filter);
  };
  const auth = attachLicenseAuth(player, {
    contentId: 'movie-1',
    tokenUrl: TOKEN_URL,
    licenseServer: { 'org.w3.clearkey': LICENSE_URL },
    ...options,
  });
  handles.push(auth);
  return { player, auth, seen, filters, certificateFilters, protectionData };
}

describe('attachLicenseAuth(dashPlayer)', () => {
  test('sets the protection data: the serverURL of each key system, beside the app’s own', () => {
    const h = setup({
      protectionData: { 'org.w3.clearkey': { audioRobustness: '' } },
    });
    expect(h.protectionData).toEqual([
      { 'org.w3.clearkey': { serverURL: LICENSE_URL, audioRobustness: '' } },
    ]);
    expect(h.filters).toHaveLength(1);
  });

  test("FairPlay (dash.js 5.2's KeySystemFairPlay): its server and certificate, and the Widevine service certificate", () => {
    const h = setup({
      licenseServer: LICENSE_URL,
      fairplay: { certificate: 'AAEC' },
      widevine: { certificateUrl: `${LICENSE_URL}/widevineCert.do` },
    });
    expect(h.protectionData[0]).toMatchObject({
      'com.apple.fps': { serverURL: LICENSE_URL, serverCertificate: 'AAEC' },
      'com.widevine.alpha': {
        serverURL: LICENSE_URL,
        certUrls: [`${LICENSE_URL}/widevineCert.do`],
      },
    });
  });

  test('a FairPlay license request as dash.js makes it: the SPC as the form body, the CKC back', async () => {
    const CKC = new Uint8Array([7, 8, 9]);
    const h = setup(
      { licenseServer: LICENSE_URL, contentId: 'movie-1', fairplay: { certificate: 'AAEC' } },
      () => HttpResponse.text(`<ckc>${btoa(String.fromCharCode(...CKC))}</ckc>`, cors()),
    );
    h.player.trigger(
      'public_keySystemSelected' as never,
      { data: { keySystem: { systemString: 'com.apple.fps' } } },
      {},
    );
    const answer = await dashLicenseRequest(
      h.filters,
      licenseRequest({ headers: { 'Content-Type': 'application/octet-stream' } }),
    );
    expect(new Uint8Array(answer.response as ArrayBuffer)).toEqual(CKC);
    expect(h.seen.license.map((l) => [text(l.body), l.contentType, l.header])).toEqual([
      ['spc=AQID', 'application/x-www-form-urlencoded', 'token-1-FairPlay-movie-1'],
    ]);
  });

  test('a single license server URL serves Widevine and PlayReady, and FairPlay only with its certificate', () => {
    const h = setup({
      licenseServer: 'https://license.example.com/ri/licenseManager.do',
      header: 'x-example-header',
    });
    expect(Object.keys(h.protectionData[0] as object)).toEqual([
      'com.widevine.alpha',
      'com.microsoft.playready',
      'com.microsoft.playready.recommendation',
    ]);
  });

  test('refuses what is not a dash.js player', () => {
    expect(() =>
      attachLicenseAuth({} as MediaPlayerClass, { contentId: 'c', tokenUrl: TOKEN_URL }),
    ).toThrow('player must be a dash.js MediaPlayer');
  });
});

describe('a license request dash.js makes', () => {
  test('is sent by the filter with the token, and dash.js loads the license from where the filter points it', async () => {
    const h = setup();
    const answer = await dashLicenseRequest(h.filters, licenseRequest());
    expect(answer.status).toBe(200);
    expect(text(answer.response as ArrayBuffer)).toBe(CLEARKEY_LICENSE);
    expect(h.seen.license).toHaveLength(1);
    expect(h.seen.license[0]?.header).toBe('token-1-Widevine-movie-1');
  });

  test("ClearKey's request as dash.js makes it (JSON text, JSON response type) gets the license JSON", async () => {
    const h = setup();
    const challenge = '{"kids":["PNj2IU1_lnfwsHbKGN8lAg"],"type":"temporary"}';
    const answer = await dashLicenseRequest(
      h.filters,
      licenseRequest({ responseType: 'json', data: challenge as unknown as ArrayBuffer }),
    );
    expect(answer.response).toEqual(JSON.parse(CLEARKEY_LICENSE));
    expect(text(h.seen.license[0]!.body)).toBe(challenge);
  });

  test("keeps the headers dash.js would send (the app's httpRequestHeaders)", async () => {
    const h = setup();
    await dashLicenseRequest(
      h.filters,
      licenseRequest({ headers: { 'Content-Type': 'application/octet-stream' } }),
    );
    expect(h.seen.license[0]?.contentType).toBe('application/octet-stream');
  });

  test('a 7011 refusal gets one fresh token and one re-send (dash.js would retry with the same header)', async () => {
    let n = 0;
    const h = setup({}, () =>
      ++n === 1
        ? HttpResponse.json({ errorCode: '7011', message: 'token expired' }, cors())
        : new HttpResponse(CLEARKEY_LICENSE, cors()),
    );
    const answer = await dashLicenseRequest(h.filters, licenseRequest());
    expect(text(answer.response as ArrayBuffer)).toBe(CLEARKEY_LICENSE);
    expect(h.seen.license.map((l) => l.header)).toEqual([
      'token-1-Widevine-movie-1',
      'token-2-Widevine-movie-1',
    ]);
  });

  test("a gateway refusal becomes dash.js's error event (code 111) carrying the LicenseServiceError, instead of a stall", async () => {
    const h = setup({}, () =>
      HttpResponse.json(
        { errorCode: '8002', message: '{"ERROR":"4031","MESSAGE":"Subscription ended"}' },
        cors(),
      ),
    );
    const errorEvent = new Promise<unknown>((resolve) => h.player.on('error', resolve));
    let settled = false;
    void dashLicenseRequest(h.filters, licenseRequest()).finally(() => {
      settled = true;
    });
    const event = (await errorEvent) as { error: { code: number; message: string } };
    expect(event.error.code).toBe(111);
    const cause = findLicenseAuthError(event) as LicenseServiceError;
    expect(cause).toBeInstanceOf(LicenseServiceError);
    expect(cause.siteErrorCode).toBe('4031');
    expect(event.error.message).toBe(cause.message);
    await Promise.resolve();
    // dash.js does not send the request: it would only report the failure again, without its cause.
    expect(settled).toBe(false);
    expect(h.seen.license).toHaveLength(1);
  });

  // dash.js adds CMCD after the filters ran; in query mode a data: URL with ?CMCD=... is no license.
  test.each(['query', 'headers'] as const)(
    'with CMCD in %s mode, dash.js still loads the license the filter got',
    async (mode) => {
      const h = setup();
      const answer = await dashLicenseRequest(h.filters, licenseRequest(), mode);
      // A data: URL whose base64 has ?CMCD=... after it is an invalid data: URL to Chromium.
      expect(answer.url).toMatch(/^data:application\/octet-stream;base64,[\w+/]+=*$/);
      expect(answer.status).toBe(200);
      expect(text(answer.response as ArrayBuffer)).toBe(CLEARKEY_LICENSE);
      expect(h.seen.license.map((l) => l.header)).toEqual(['token-1-Widevine-movie-1']);
    },
  );

  test('an individualization request passes untouched, without a token', async () => {
    const h = setup();
    const request = licenseRequest({ messageType: 'individualization-request' });
    for (const filter of h.filters) await filter(request);
    expect(request.url).toBe(LICENSE_URL);
    expect(request.headers).toEqual({});
    expect(h.seen.token).toHaveLength(0);
  });

  test('with several key systems, the one dash.js selected decides the drm_type', async () => {
    const h = setup({
      licenseServer: { 'com.widevine.alpha': LICENSE_URL, 'com.microsoft.playready': LICENSE_URL },
    });
    h.player.trigger(
      // MediaPlayerEvents.KEY_SYSTEM_SELECTED (dash.js types trigger's first argument wrongly).
      'public_keySystemSelected' as never,
      { data: { keySystem: { systemString: 'com.microsoft.playready' } } },
      {},
    );
    await dashLicenseRequest(h.filters, licenseRequest());
    expect(h.seen.token).toEqual([{ cid: 'movie-1', drm_type: 'PlayReady' }]);
  });

  test('detach() takes the filter away and stops prefetching', async () => {
    const h = setup();
    const removed: unknown[] = [];
    const unregister = h.player.unregisterLicenseRequestFilter.bind(h.player);
    h.player.unregisterLicenseRequestFilter = (filter) => {
      removed.push(filter);
      unregister(filter);
    };
    h.auth.detach();
    expect(removed).toEqual(h.filters);
    expect(await h.auth.prefetch({ keySystem: 'org.w3.clearkey' })).toBe(false);
    expect(h.seen.token).toHaveLength(0);
  });
});

describe('dash.js reset()', () => {
  // initialize() needs MediaSource, which happy-dom lacks: a stand-in that supports every type.
  const initialized = (h: ReturnType<typeof setup>) => {
    vi.stubGlobal('MediaSource', { isTypeSupported: () => true });
    h.player.initialize();
    return h;
  };

  test("drops the app's filters and protection data: the handle's go back on, and the next license request carries the token", async () => {
    const h = initialized(setup());
    h.filters.length = h.certificateFilters.length = h.protectionData.length = 0;
    h.player.reset();
    expect(h.filters).toHaveLength(1);
    expect(h.certificateFilters).toHaveLength(1);
    expect(h.protectionData).toEqual([{ 'org.w3.clearkey': { serverURL: LICENSE_URL } }]);
    await dashLicenseRequest(h.filters, licenseRequest());
    expect(h.seen.license.map((l) => l.header)).toEqual(['token-1-Widevine-movie-1']);
  });

  test('detach() gives dash.js its own reset() back', () => {
    const h = initialized(setup());
    const ours = h.player.reset;
    h.auth.detach();
    expect(h.player.reset).not.toBe(ours);
    h.filters.length = 0;
    h.player.reset();
    expect(h.filters).toEqual([]);
  });
});

describe('a FairPlay certificate URL', () => {
  /** dash.js 5.2's _buildCertificateRequest + _sendCertificateRequest: filters, then the XHR. */
  async function dashCertificateRequest(filters: CertificateFilter[], url: string) {
    const request = {
      url,
      method: 'GET',
      responseType: 'arraybuffer',
      headers: {},
      withCredentials: false,
      body: null,
    } as CertificateRequest;
    for (const filter of filters) await filter(request);
    return new Promise<ArrayBuffer>((resolve, reject) => {
      const xhr = new XMLHttpRequest();
      xhr.open(request.method, request.url, true);
      xhr.responseType = 'arraybuffer';
      xhr.onload = () => resolve(xhr.response as ArrayBuffer);
      xhr.onerror = () => reject(new Error('xhr error'));
      xhr.send();
    });
  }

  test('that answers base64 (as the service does) reaches the CDM as DER', async () => {
    const url = `${LICENSE_URL}/fpsKeyManager.do`;
    const h = setup({ licenseServer: LICENSE_URL, fairplay: { certificateUrl: url } });
    expect(h.protectionData[0]).toMatchObject({ 'com.apple.fps': { certUrls: [url] } });
    server.use(http.get(url, () => HttpResponse.text('MIIBAg==', cors())));
    const certificate = await dashCertificateRequest(h.certificateFilters, url);
    expect([...new Uint8Array(certificate)]).toEqual([0x30, 0x82, 0x01, 0x02]);
  });

  test("that fails is dash.js's error event with FAIRPLAY_CERTIFICATE, instead of a CDM failure later", async () => {
    const url = `${LICENSE_URL}/fpsKeyManager.do`;
    const h = setup({ licenseServer: LICENSE_URL, fairplay: { certificateUrl: url } });
    server.use(http.get(url, () => new HttpResponse('gone', cors({ status: 404 }))));
    const errorEvent = new Promise<unknown>((resolve) => h.player.on('error', resolve));
    void dashCertificateRequest(h.certificateFilters, url);
    expect(findLicenseAuthError(await errorEvent)).toMatchObject({
      code: 'FAIRPLAY_CERTIFICATE',
      message: expect.stringContaining('HTTP 404'),
    });
  });

  test("a manifest's own certificate URL is left to dash.js", async () => {
    const h = setup({ licenseServer: LICENSE_URL, fairplay: { certificate: 'AAEC' } });
    const request = { url: `${LICENSE_URL}/other.cer` } as CertificateRequest;
    for (const filter of h.certificateFilters) await filter(request);
    expect(request.url).toBe(`${LICENSE_URL}/other.cer`);
  });
});

describe('a playlist on one dash.js player', () => {
  // What attachSource() does on dash.js's event bus: the old stream is torn down, then the
  // manifest of the new source starts loading (MediaPlayer.attachSource, StreamController.reset).
  const attachSource = (player: MediaPlayerClass) => {
    player.trigger('streamTeardownComplete' as never, {}, {});
    player.trigger('manifestLoadingStarted' as never, {}, {});
  };

  test("each source's prefetch and license request use the cid named for it", async () => {
    const site = slowSite();
    const h = setup({ contentId: undefined, getToken: site.getToken, tokenUrl: undefined });
    h.auth.load('A');
    attachSource(h.player);
    await expect.poll(site.cids).toEqual(['A']);
    site.give('A');
    await dashLicenseRequest(h.filters, licenseRequest());
    h.auth.load('B');
    attachSource(h.player);
    await expect.poll(site.cids).toEqual(['A', 'B']);
    site.give('B');
    await dashLicenseRequest(h.filters, licenseRequest());
    expect(h.seen.license.map((l) => l.header)).toEqual(['token-A', 'token-B']);
  });

  test("a switch while A's token is on its way: no error event, no tokenFailed, A's request left unanswered, B's carries B's token", async () => {
    const site = slowSite();
    const h = setup({ contentId: undefined, getToken: site.getToken, tokenUrl: undefined });
    const errors: unknown[] = [];
    h.player.on('error', (event) => errors.push(event));
    h.auth.on('tokenFailed', (event) => errors.push(event));
    h.auth.load('A');
    attachSource(h.player);
    await expect.poll(site.cids).toEqual(['A']);
    let settledA = false;
    void dashLicenseRequest(h.filters, licenseRequest()).finally(() => (settledA = true));
    h.auth.load('B');
    attachSource(h.player);
    expect(site.asked[0]?.signal.aborted).toBe(true);
    site.give('A');
    await expect.poll(site.cids).toEqual(['A', 'B']);
    site.give('B');
    await dashLicenseRequest(h.filters, licenseRequest());
    expect(h.seen.license.map((l) => l.header)).toEqual(['token-B']);
    expect(settledA).toBe(false);
    expect(errors).toEqual([]);
  });
});

describe("what the app set for dash.js's license requests", () => {
  test('withCredentials sends the cookies (credentials: include)', async () => {
    const inits: RequestInit[] = [];
    const h = setup({
      fetch: (url, init) => {
        if (url === LICENSE_URL) inits.push(init);
        return fetch(url, init);
      },
    });
    await dashLicenseRequest(h.filters, licenseRequest({ withCredentials: true }));
    await dashLicenseRequest(h.filters, licenseRequest({ withCredentials: false }));
    expect(inits.map((i) => i.credentials)).toEqual(['include', undefined]);
  });

  test("a later setProtectionData() keeps the handle's serverURL under the app's settings", () => {
    const h = setup();
    h.player.setProtectionData({
      'org.w3.clearkey': { httpRequestHeaders: { 'x-app': '1' } },
    } as never);
    expect(h.protectionData.at(-1)).toEqual({
      'org.w3.clearkey': { serverURL: LICENSE_URL, httpRequestHeaders: { 'x-app': '1' } },
    });
  });
});
