// One hls.js player, many assets in a row: hls.js's own loadSource() (its MANIFEST_LOADING event),
// its EME controller's license request code and the hook, on happy-dom with msw. A switch while a
// token is on its way is no error; the app's own licenseXhrSetup composes with the handle's.
import Hls from 'hls.js';
import { http, HttpResponse } from 'msw';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import {
  attachLicenseAuth,
  findLicenseAuthError,
  type HlsLicenseAuthOptions,
} from '../src/hls/index.ts';
import {
  cors,
  licenseServer,
  LICENSE_URL,
  newSeen,
  preflight,
  server,
  SITE,
} from './http-mocks.ts';
import { slowSite } from './slow-site.ts';

beforeAll(() => server.listen({ onUnhandledFrame: 'error' }));
const players: Hls[] = [];
afterEach(() => {
  server.resetHandlers();
  for (const hls of players.splice(0)) hls.destroy();
});
afterAll(() => server.close());

const CLEARKEY_LICENSE = '{"keys":[{"kty":"oct","k":"AAAA","kid":"BBBB"}],"type":"temporary"}';
const KEY_URI = 'data:text/plain;base64,PNj2IU1/lnfwsHbKGN8lAg==';

interface EmeControllerInternals {
  requestLicense(
    context: object,
    levelKey: { uri: string; keyFormat: string },
    challenge: Uint8Array,
  ): Promise<ArrayBuffer>;
}

function setup(options: Partial<HlsLicenseAuthOptions> = {}, hlsConfig: object = {}) {
  const seen = newSeen();
  const site = slowSite();
  server.use(
    preflight,
    licenseServer(seen, () => new HttpResponse(CLEARKEY_LICENSE, cors())),
    // The playlists hls.js asks for: not found (happy-dom plays nothing).
    http.get(`${SITE}/:asset`, () => new HttpResponse(null, cors({ status: 404 }))),
  );
  const hls = new Hls(hlsConfig);
  players.push(hls);
  const errors: unknown[] = [];
  hls.on(Hls.Events.ERROR, (_, data) => {
    if (findLicenseAuthError(data) || data.details === 'keySystemNoKeys') errors.push(data);
  });
  const auth = attachLicenseAuth(hls, {
    getToken: site.getToken,
    licenseServer: { 'org.w3.clearkey': LICENSE_URL },
    ...options,
  });
  const eme = (hls as unknown as { emeController: EmeControllerInternals }).emeController;
  /** One license request as hls.js makes it when a key session asks for a license. */
  const requestLicense = () =>
    eme.requestLicense(
      {
        keySystem: 'org.w3.clearkey',
        mediaKeysSession: {},
        keyRequests: { [KEY_URI]: { requestErrors: [], status: 'license-request' } },
      },
      { uri: KEY_URI, keyFormat: 'org.w3.clearkey' },
      new Uint8Array([1, 2, 3]),
    );
  const play = (cid: string) => {
    auth.load(cid);
    hls.loadSource(`${SITE}/${cid}.m3u8`);
  };
  return { hls, auth, seen, site, errors, requestLicense, play };
}

describe('a playlist on one hls.js player', () => {
  test("each loadSource()'s prefetch and license request use the cid named for it", async () => {
    const { seen, site, requestLicense, play } = setup();
    play('A');
    await expect.poll(site.cids).toEqual(['A']);
    site.give('A');
    await requestLicense();
    play('B');
    await expect.poll(site.cids).toEqual(['A', 'B']);
    site.give('B');
    await requestLicense();
    expect(seen.license.map((l) => l.header)).toEqual(['token-A', 'token-B']);
  });

  test("a switch while A's token is on its way: no error event, no tokenFailed, A's hook never answers, B's request carries B's token", async () => {
    const { auth, seen, site, errors, requestLicense, play } = setup();
    auth.on('tokenFailed', (event) => errors.push(event));
    play('A');
    await expect.poll(site.cids).toEqual(['A']);
    let settledA = false;
    const requestA = requestLicense().then(
      () => (settledA = true),
      () => (settledA = true),
    );
    // hls.js calls the hook a microtask after the request starts: A's request is under way.
    await new Promise((resolve) => setTimeout(resolve, 0));
    play('B');
    expect(site.asked[0]?.signal.aborted).toBe(true);
    site.give('A'); // late: dropped
    await expect.poll(site.cids).toEqual(['A', 'B']);
    site.give('B');
    await requestLicense();
    expect(seen.license.map((l) => l.header)).toEqual(['token-B']);
    // A rejection would make hls.js call the hook again and raise a fatal keySystemNoKeys,
    // whose stopLoad() would stop B.
    expect(settledA).toBe(false);
    expect(errors).toEqual([]);
    void requestA;
  });
});

describe("the app's own licenseXhrSetup", () => {
  test('composes with the handle: its header, its cookies and its URL go with the request', async () => {
    const inits: RequestInit[] = [];
    const urls: string[] = [];
    const { seen, site, requestLicense, play } = setup(
      {
        fetch: (url, init) => {
          urls.push(url);
          inits.push(init);
          return fetch(url, init);
        },
      },
      {
        licenseXhrSetup(xhr: XMLHttpRequest, url: string) {
          xhr.open('POST', `${url}?app=1`, true);
          xhr.withCredentials = true;
          xhr.setRequestHeader('x-app-session', 'app-123');
        },
      },
    );
    server.use(
      http.post(`${LICENSE_URL}`, async ({ request }) => {
        seen.license.push({
          header: request.headers.get('x-drm-custom-data'),
          contentType: request.headers.get('x-app-session'),
          body: new Uint8Array(await request.arrayBuffer()),
        });
        return new HttpResponse(CLEARKEY_LICENSE, cors());
      }),
    );
    play('A');
    site.give('A');
    await expect.poll(site.cids).toEqual(['A']);
    site.give('A');
    await requestLicense();
    expect(urls).toEqual([`${LICENSE_URL}?app=1`]);
    expect(inits[0]?.credentials).toBe('include');
    expect(seen.license.map((l) => [l.header, l.contentType])).toEqual([['token-A', 'app-123']]);
  });
});

test('without contentId, a load the app did not name fails with NO_CONTENT_ID, before any token', async () => {
  const { site, requestLicense } = setup();
  await expect(requestLicense()).rejects.toMatchObject({
    code: 'NO_CONTENT_ID',
    message: expect.stringContaining('name the asset with load(contentId)'),
  });
  expect(site.cids()).toEqual([]);
});

test('the Widevine service certificate reaches hls.js as the key system’s serverCertificateUrl', () => {
  const { hls } = setup({
    licenseServer: { 'com.widevine.alpha': LICENSE_URL },
    widevine: { certificate: 'AAEC' },
  });
  expect(hls.config.drmSystems?.['com.widevine.alpha']?.serverCertificateUrl).toBe(
    'data:application/octet-stream;base64,AAEC',
  );
});
