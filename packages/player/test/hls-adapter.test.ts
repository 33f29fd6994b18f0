// The hls.js adapter inside a real hls.js 1.7: its EME controller's own license request code
// (setupLicenseXHR, the XHR, licenseResponseCallback, its retry of the hook) runs on happy-dom's
// XMLHttpRequest, with msw as the site and the license server. EME itself is not in happy-dom: the
// real-browser tests in test/e2e/adapters play the content.
import Hls from 'hls.js';
import { http, HttpResponse } from 'msw';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import {
  attachLicenseAuth,
  findLicenseAuthError,
  LicenseAuthError,
  LicenseServiceError,
  type HlsLicenseAuthOptions,
} from '../src/hls/index.ts';
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

beforeAll(() => server.listen({ onUnhandledFrame: 'error' }));
const players: Hls[] = [];
afterEach(() => {
  server.resetHandlers();
  for (const hls of players.splice(0)) hls.destroy();
});
afterAll(() => server.close());

const CLEARKEY_LICENSE = '{"keys":[{"kty":"oct","k":"AAAA","kid":"BBBB"}],"type":"temporary"}';
const KEY_URI = 'data:text/plain;base64,PNj2IU1/lnfwsHbKGN8lAg==';

/** The private part of hls.js's EME controller these tests drive: one license request of a key. */
interface EmeControllerInternals {
  requestLicense(
    context: object,
    levelKey: { uri: string; keyFormat: string },
    challenge: Uint8Array,
  ): Promise<ArrayBuffer>;
}

/** hls.js's EME controller loads a key system's server certificate with its loader. */
interface CertificateInternals {
  fetchServerCertificate(keySystem: string): Promise<ArrayBuffer>;
}

function setup(
  options: Partial<HlsLicenseAuthOptions> = {},
  license?: Parameters<typeof licenseServer>[1],
) {
  const seen: Seen = newSeen();
  server.use(
    preflight,
    tokenEndpoint(seen),
    licenseServer(seen, license ?? (() => new HttpResponse(CLEARKEY_LICENSE, cors()))),
  );
  const hls = new Hls();
  players.push(hls);
  const auth = attachLicenseAuth(hls, {
    contentId: 'movie-1',
    tokenUrl: TOKEN_URL,
    licenseServer: { 'org.w3.clearkey': LICENSE_URL },
    ...options,
  });
  const eme = (hls as unknown as { emeController: EmeControllerInternals }).emeController;
  /** One license request as hls.js makes it when a key session asks for a license. */
  const requestLicense = (
    keySystem = 'org.w3.clearkey',
    uri = KEY_URI,
    challenge = new Uint8Array([1, 2, 3]),
  ) =>
    eme.requestLicense(
      {
        keySystem,
        mediaKeysSession: {},
        keyRequests: { [uri]: { requestErrors: [], status: 'license-request' } },
      },
      { uri, keyFormat: keySystem },
      challenge,
    );
  return { hls, auth, seen, requestLicense };
}

/** One license request of `hls` as its EME controller makes it (see setup). */
const requestLicenseOf = (hls: Hls) =>
  (hls as unknown as { emeController: EmeControllerInternals }).emeController.requestLicense(
    {
      keySystem: 'org.w3.clearkey',
      mediaKeysSession: {},
      keyRequests: { [KEY_URI]: { requestErrors: [], status: 'license-request' } },
    },
    { uri: KEY_URI, keyFormat: 'org.w3.clearkey' },
    new Uint8Array([1, 2, 3]),
  );

async function failure(promise: Promise<unknown>): Promise<LicenseAuthError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(LicenseAuthError);
    return error as LicenseAuthError;
  }
  throw new Error('expected a rejection');
}

describe('attachLicenseAuth(hls)', () => {
  test('turns EME on and gives hls.js the license server of each key system', () => {
    const { hls } = setup();
    expect(hls.config.emeEnabled).toBe(true);
    expect(hls.config.drmSystems).toEqual({ 'org.w3.clearkey': { licenseUrl: LICENSE_URL } });
    expect(typeof hls.config.licenseXhrSetup).toBe('function');
  });

  test("keeps a license URL the app configured for a key system, and the app's other systems", () => {
    const hls = new Hls({
      drmSystems: { 'org.w3.clearkey': { licenseUrl: 'http://127.0.0.1:1/own' } },
    });
    players.push(hls);
    attachLicenseAuth(hls, {
      contentId: 'movie-1',
      tokenUrl: TOKEN_URL,
      licenseServer: { 'org.w3.clearkey': LICENSE_URL, 'com.widevine.alpha': LICENSE_URL },
    });
    expect(hls.config.drmSystems).toEqual({
      'org.w3.clearkey': { licenseUrl: 'http://127.0.0.1:1/own' },
      'com.widevine.alpha': { licenseUrl: LICENSE_URL },
    });
  });

  test('refuses a second handle, media already attached, and what is not an Hls', () => {
    const { hls } = setup();
    const options = { contentId: 'c', tokenUrl: TOKEN_URL };
    expect(() => attachLicenseAuth(hls, options)).toThrow(
      'this hls.js instance has a handle already',
    );
    const attachedHls = new Hls();
    players.push(attachedHls);
    Object.defineProperty(attachedHls, 'media', { value: {} });
    expect(() => attachLicenseAuth(attachedHls, options)).toThrow(
      'attach before hls.attachMedia()',
    );
    expect(() => attachLicenseAuth({} as Hls, options)).toThrow(
      'attachLicenseAuth(player, options): hls must be an Hls instance',
    );
  });

  test('a remote license server without `header` is refused at attach', () => {
    const hls = new Hls();
    players.push(hls);
    expect(() =>
      attachLicenseAuth(hls, {
        contentId: 'c',
        tokenUrl: TOKEN_URL,
        licenseServer: 'https://license.example.com/ri/licenseManager.do',
      }),
    ).toThrow('header is required for the license server https://license.example.com');
    expect(hls.config.licenseXhrSetup).toBeUndefined();
  });

  // hls.js's InterstitialsController makes each asset player from the primary's userConfig.
  test("an interstitial's player, made from hls.userConfig, gets the handle's configuration", async () => {
    const { hls, auth, seen } = setup();
    const asset = new Hls({ ...hls.userConfig, assetPlayerId: 'ad-1', primarySessionId: 'p' });
    players.push(asset);
    expect(asset.config.emeEnabled).toBe(true);
    expect(asset.config.drmSystems).toEqual({ 'org.w3.clearkey': { licenseUrl: LICENSE_URL } });
    expect(text(await requestLicenseOf(asset))).toBe(CLEARKEY_LICENSE);
    expect(seen.license.map((l) => l.header)).toEqual(['token-1-Widevine-movie-1']);
    auth.detach();
    expect(hls.userConfig).toEqual({});
  });

  test('detach() and hls.destroy() give the configuration back', () => {
    const { hls, auth } = setup();
    auth.detach();
    expect(hls.config.emeEnabled).toBe(false);
    expect(hls.config.licenseXhrSetup).toBeUndefined();
    expect(hls.config.drmSystems).toEqual({});
    expect(hls.config.loader).toBe(Hls.DefaultConfig.loader);
    const second = setup();
    second.hls.destroy();
    expect(() => second.auth.prefetch()).not.toThrow();
  });
});

describe("a license request through hls.js's own request code", () => {
  test('carries the token, and hls.js hands the license to the CDM', async () => {
    const h = setup();
    const license = await h.requestLicense();
    expect(text(license)).toBe(CLEARKEY_LICENSE);
    expect(h.seen.license).toHaveLength(1);
    expect(h.seen.license[0]?.header).toBe('token-1-Widevine-movie-1');
    expect([...h.seen.license[0]!.body]).toEqual([1, 2, 3]);
  });

  test('a json-format license reaches hls.js unwrapped', async () => {
    const h = setup({}, () => HttpResponse.json({ license: CLEARKEY_LICENSE }, cors()));
    expect(text(await h.requestLicense())).toBe(CLEARKEY_LICENSE);
  });

  test('a 7011 refusal (HTTP 200, which hls.js would give the CDM) gets one fresh token and one re-send', async () => {
    let n = 0;
    const h = setup({}, () =>
      ++n === 1
        ? HttpResponse.json({ errorCode: '7011', message: 'token expired' }, cors())
        : new HttpResponse(CLEARKEY_LICENSE, cors()),
    );
    const sent: boolean[] = [];
    h.auth.on('licenseRequestSent', (event) => sent.push(event.refreshed));
    expect(text(await h.requestLicense())).toBe(CLEARKEY_LICENSE);
    expect(h.seen.license.map((l) => l.header)).toEqual([
      'token-1-Widevine-movie-1',
      'token-2-Widevine-movie-1',
    ]);
    expect(sent).toEqual([false, true]);
  });

  test("a gateway refusal (8002) rejects hls.js's request with the LicenseServiceError, sent once although hls.js runs the hook twice", async () => {
    const h = setup({}, () =>
      HttpResponse.json(
        { errorCode: '8002', message: '{"ERROR":"4031","MESSAGE":"Subscription ended"}' },
        cors(),
      ),
    );
    const error = (await failure(h.requestLicense())) as LicenseServiceError;
    expect(error).toBeInstanceOf(LicenseServiceError);
    expect(error.errorCode).toBe('8002');
    expect(error.siteErrorCode).toBe('4031');
    expect(h.seen.license).toHaveLength(1);
    // What hls.js puts in its ERROR event for a rejected license request.
    const errorData = { type: 'keySystemError', details: 'keySystemNoKeys', error, fatal: true };
    expect(findLicenseAuthError(errorData)).toBe(error);
  });

  test('a FairPlay certificate URL that answers base64 (as the service does) reaches the CDM as DER', async () => {
    const { hls, auth } = setup({
      licenseServer: { 'com.apple.fps': LICENSE_URL },
      fairplay: { certificateUrl: `${LICENSE_URL}/fpsKeyManager.do` },
    });
    server.use(
      http.get(`${LICENSE_URL}/fpsKeyManager.do`, () => HttpResponse.text('MIIBAg==', cors())),
    );
    const eme = (hls as unknown as { emeController: CertificateInternals }).emeController;
    const certificate = await eme.fetchServerCertificate('com.apple.fps');
    expect([...new Uint8Array(certificate)]).toEqual([0x30, 0x82, 0x01, 0x02]);
    auth.detach();
    expect(hls.config.loader).toBe(Hls.DefaultConfig.loader);
  });

  test('FairPlay takes the cid from the skd:// URI of the key, and gets its CKC unwrapped', async () => {
    const h = setup(
      {
        contentId: undefined,
        licenseServer: { 'com.apple.fps': LICENSE_URL },
        fairplay: { certificate: 'AQID' },
      },
      () => new HttpResponse('<ckc>BAUG</ckc>', cors()),
    );
    expect(h.hls.config.drmSystems?.['com.apple.fps']).toEqual({
      licenseUrl: LICENSE_URL,
      serverCertificateUrl: 'data:application/octet-stream;base64,AQID',
    });
    const ckc = await h.requestLicense('com.apple.fps', 'skd://movie-9?iv=1', new Uint8Array([7]));
    expect([...new Uint8Array(ckc)]).toEqual([4, 5, 6]);
    expect(h.seen.token).toEqual([{ cid: 'movie-9', drm_type: 'FairPlay' }]);
    expect(text(h.seen.license[0]!.body)).toBe('spc=Bw%3D%3D');
  });

  test('a key system the handle does not serve is left to hls.js as it is', async () => {
    const h = setup({ drmTypes: { 'org.w3.clearkey': 'Widevine' } });
    h.hls.config.drmSystems = {
      ...h.hls.config.drmSystems,
      'com.example.other': { licenseUrl: LICENSE_URL },
    } as typeof h.hls.config.drmSystems;
    const license = await h.requestLicense('com.example.other');
    expect(text(license)).toBe(CLEARKEY_LICENSE);
    expect(h.seen.license[0]?.header).toBeNull();
    expect(h.seen.token).toHaveLength(0);
  });

  test('the token is prefetched when hls.js starts loading a manifest', async () => {
    const h = setup();
    server.use(
      http.get('http://localhost:3000/master.m3u8', () => new HttpResponse(null, { status: 404 })),
    );
    const received = new Promise((resolve) => h.auth.on('tokenReceived', resolve));
    h.hls.trigger(Hls.Events.MANIFEST_LOADING, { url: 'http://localhost:3000/master.m3u8' });
    await received;
    expect(h.seen.token).toEqual([{ cid: 'movie-1', drm_type: 'Widevine' }]);
    await h.requestLicense();
    expect(h.seen.token).toHaveLength(1);
  });
});
