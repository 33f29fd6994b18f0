// The video.js adapter with a real video.js 8 player and videojs-contrib-eme's own flow for an
// `encrypted` event (key system access, session, getLicense, session update, its error handler),
// driven by a stand-in CDM since happy-dom has no EME; msw is the site and the license server.
import videojsModule from 'video.js';
import 'videojs-contrib-eme';
import { emeErrorHandler, getOptions, handleEncryptedEvent } from 'videojs-contrib-eme';
import { http, HttpResponse } from 'msw';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import {
  attachLicenseAuth,
  findLicenseAuthError,
  LicenseServiceError,
  type VideoJsLicenseAuthOptions,
  type VideoJsPlayer,
} from '../src/videojs/index.ts';
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

// video.js is CommonJS to TypeScript's NodeNext resolution: its callable default is one level in.
const videojs = videojsModule as unknown as typeof videojsModule.default;
// The refusal test makes the player log its error; the test reads it from player.error().
videojs.log.level('off');

const CLEARKEY_LICENSE = '{"keys":[{"kty":"oct","k":"AAAA","kid":"BBBB"}],"type":"temporary"}';
const CHALLENGE = new Uint8Array([1, 2, 3]);

/**
 * A stand-in CDM: every session asks for a license with CHALLENGE when its request is generated,
 * and records what it is updated with.
 */
function installCdm() {
  const updates: Uint8Array[] = [];
  const sessions: EventTarget[] = [];
  /** The CDM asks for a renewal of the latest session's license, as a renewal interval does. */
  const renew = () => {
    const message = Object.assign(new Event('message'), {
      messageType: 'license-renewal',
      message: CHALLENGE.buffer.slice(0),
    });
    sessions.at(-1)?.dispatchEvent(message);
  };
  let updated: (bytes: Uint8Array) => void = () => undefined;
  const nextUpdate = () => new Promise<Uint8Array>((resolve) => (updated = resolve));
  const mediaKeys = {
    createSession() {
      const session = Object.assign(new EventTarget(), {
        keyStatuses: new Map(),
        sessionId: 'session-1',
        async generateRequest() {
          const message = Object.assign(new Event('message'), {
            messageType: 'license-request',
            message: CHALLENGE.buffer,
          });
          queueMicrotask(() => session.dispatchEvent(message));
        },
        async update(license: ArrayBuffer | Uint8Array) {
          const bytes = new Uint8Array(license instanceof ArrayBuffer ? license : license.buffer);
          updates.push(bytes);
          updated(bytes);
        },
        close: async () => undefined,
      });
      sessions.push(session);
      return session;
    },
    setServerCertificate: async () => true,
  };
  Object.defineProperty(navigator, 'requestMediaKeySystemAccess', {
    configurable: true,
    value: async (keySystem: string, configurations: unknown[]) => ({
      keySystem,
      getConfiguration: () => configurations[0],
      createMediaKeys: async () => mediaKeys,
    }),
  });
  return { updates, nextUpdate, renew };
}

const players: Array<{ dispose(): void }> = [];
beforeAll(() => server.listen({ onUnhandledFrame: 'error' }));
afterEach(() => {
  server.resetHandlers();
  for (const player of players.splice(0)) player.dispose();
});
afterAll(() => server.close());

function setup(
  options: Partial<VideoJsLicenseAuthOptions> = {},
  license?: Parameters<typeof licenseServer>[1],
) {
  const seen: Seen = newSeen();
  server.use(
    preflight,
    tokenEndpoint(seen),
    licenseServer(seen, license ?? (() => new HttpResponse(CLEARKEY_LICENSE, cors()))),
  );
  const video = document.createElement('video');
  document.body.append(video);
  Object.assign(video, { setMediaKeys: async () => undefined });
  const player = videojs(video);
  players.push(player);
  const auth = attachLicenseAuth(player as unknown as VideoJsPlayer, {
    contentId: 'movie-1',
    tokenUrl: TOKEN_URL,
    licenseServer: { 'org.w3.clearkey': LICENSE_URL },
    ...options,
  });
  const cdm = installCdm();
  /** What the plugin does for the media element's `encrypted` event. */
  const encrypted = (initData = new Uint8Array([7, 7, 7])) =>
    handleEncryptedEvent(
      player,
      { initDataType: 'cenc', initData, target: video },
      getOptions(player),
      [],
      player.tech(true),
      emeErrorHandler(player),
    );
  return { player, auth, seen, cdm, encrypted };
}

describe('attachLicenseAuth(videojsPlayer)', () => {
  test("sets getLicense for each key system as the plugin's options, and hands the same keySystems for the source", () => {
    const h = setup();
    const eme = (h.player as unknown as { eme: { options: { keySystems: object } } }).eme;
    expect(Object.keys(eme.options.keySystems)).toEqual(['org.w3.clearkey']);
    expect(Object.keys(h.auth.keySystems)).toEqual(['org.w3.clearkey']);
    expect(typeof h.auth.keySystems['org.w3.clearkey']?.getLicense).toBe('function');
  });

  test('leaves a key system without a drm_type to the app', () => {
    const h = setup({
      licenseServer: { 'org.w3.clearkey': LICENSE_URL, 'com.example.other': LICENSE_URL },
    });
    expect(Object.keys(h.auth.keySystems)).toEqual(['org.w3.clearkey']);
  });

  test('needs licenseServer and the EME plugin', () => {
    const video = document.createElement('video');
    document.body.append(video);
    const player = videojs(video);
    players.push(player);
    expect(() =>
      attachLicenseAuth(player as unknown as VideoJsPlayer, {
        contentId: 'c',
        tokenUrl: TOKEN_URL,
      }),
    ).toThrow('licenseServer or licenseProxy is required');
    expect(() =>
      attachLicenseAuth(
        { on() {}, off() {} },
        {
          contentId: 'c',
          tokenUrl: TOKEN_URL,
          licenseServer: LICENSE_URL,
        },
      ),
    ).toThrow('videojs-contrib-eme registered');
  });

  test('detach() puts the plugin’s key systems back', () => {
    const h = setup();
    h.auth.detach();
    const eme = (h.player as unknown as { eme: { options: { keySystems?: object } } }).eme;
    expect(eme.options.keySystems).toBeUndefined();
  });
});

describe("a license request through videojs-contrib-eme's own flow", () => {
  test('carries the token, and the session is updated with the license', async () => {
    const h = setup();
    const update = h.cdm.nextUpdate();
    await h.encrypted();
    expect(text(await update)).toBe(CLEARKEY_LICENSE);
    expect(h.seen.license).toHaveLength(1);
    expect(h.seen.license[0]?.header).toBe('token-1-Widevine-movie-1');
    expect([...h.seen.license[0]!.body]).toEqual([...CHALLENGE]);
  });

  test('a 7011 refusal gets one fresh token and one re-send before the session sees anything', async () => {
    let n = 0;
    const h = setup({}, () =>
      ++n === 1
        ? HttpResponse.json({ errorCode: '7011', message: 'token expired' }, cors())
        : new HttpResponse(CLEARKEY_LICENSE, cors()),
    );
    const update = h.cdm.nextUpdate();
    await h.encrypted();
    expect(text(await update)).toBe(CLEARKEY_LICENSE);
    expect(h.cdm.updates).toHaveLength(1);
    expect(h.seen.license.map((l) => l.header)).toEqual([
      'token-1-Widevine-movie-1',
      'token-2-Widevine-movie-1',
    ]);
  });

  test("a gateway refusal (8002) is the player's error, with the LicenseServiceError as its originalError", async () => {
    const h = setup({}, () =>
      HttpResponse.json(
        { errorCode: '8002', message: '{"ERROR":"4031","MESSAGE":"Subscription ended"}' },
        cors(),
      ),
    );
    const errored = new Promise<void>((resolve) => h.player.on('error', () => resolve()));
    await h.encrypted();
    await errored;
    const error = h.player.error();
    expect(error?.code).toBe(5);
    const cause = findLicenseAuthError(error) as LicenseServiceError;
    expect(cause).toBeInstanceOf(LicenseServiceError);
    expect(cause.siteErrorCode).toBe('4031');
    expect(error?.message).toBe(cause.message);
    expect(h.cdm.updates).toHaveLength(0);
    expect(h.seen.license).toHaveLength(1);
  });

  test('the token is prefetched when the player starts loading a source', async () => {
    const h = setup();
    const received = new Promise((resolve) => h.auth.on('tokenReceived', resolve));
    h.player.trigger('loadstart');
    await received;
    expect(h.seen.token).toEqual([{ cid: 'movie-1', drm_type: 'Widevine' }]);
  });
});

describe('a playlist on one video.js player', () => {
  /** What the app does for each asset: names it, then `player.src()` (its `loadstart`). */
  const play = (h: ReturnType<typeof setup>, cid: string) => {
    h.auth.load(cid);
    h.player.trigger('loadstart');
  };

  test("each source's prefetch and license request use the cid named for it", async () => {
    const h = setup({ contentId: undefined });
    play(h, 'A');
    let update = h.cdm.nextUpdate();
    await h.encrypted();
    await update;
    play(h, 'B');
    update = h.cdm.nextUpdate();
    await h.encrypted();
    await update;
    expect(h.seen.token.map((t) => t.cid)).toEqual(['A', 'B']);
    expect(h.seen.license.map((l) => l.header)).toEqual([
      'token-1-Widevine-A',
      'token-2-Widevine-B',
    ]);
  });

  test("a switch while A's token is on its way: no player error, no tokenFailed, A's session gets nothing, B's request carries B's token", async () => {
    const site = slowSite();
    const h = setup({ contentId: undefined, tokenUrl: undefined, getToken: site.getToken });
    const failed: unknown[] = [];
    h.auth.on('tokenFailed', (event) => failed.push(event));
    play(h, 'A');
    // The plugin's flow for A waits for its license, which never comes.
    void h.encrypted();
    await expect.poll(site.cids).toEqual(['A']);
    play(h, 'B');
    expect(site.asked[0]?.signal.aborted).toBe(true);
    site.give('A');
    const update = h.cdm.nextUpdate();
    const flowB = h.encrypted();
    await expect.poll(site.cids).toEqual(['A', 'B']);
    site.give('B');
    await update;
    await flowB;
    expect(h.seen.license.map((l) => l.header)).toEqual(['token-B']);
    expect(h.cdm.updates).toHaveLength(1);
    expect(h.player.error()).toBeNull();
    expect(failed).toEqual([]);
  });
});

describe("what the plugin's own request would have sent", () => {
  test("emeHeaders and the key system's licenseHeaders go with the license request", async () => {
    const h = setup();
    const eme = (h.player as unknown as { eme: { options: Record<string, unknown> } }).eme;
    eme.options['emeHeaders'] = { 'x-app-session': 'app-123' };
    const keySystems = eme.options['keySystems'] as Record<string, Record<string, unknown>>;
    keySystems['org.w3.clearkey']!['licenseHeaders'] = { 'Content-Type': 'application/x-app' };
    const seenHeaders: Array<string | null> = [];
    server.use(
      http.post(LICENSE_URL, ({ request }) => {
        seenHeaders.push(request.headers.get('x-app-session'), request.headers.get('content-type'));
        return new HttpResponse(CLEARKEY_LICENSE, cors());
      }),
    );
    const update = h.cdm.nextUpdate();
    await h.encrypted();
    await update;
    expect(seenHeaders).toEqual(['app-123', 'application/x-app']);
  });
});

describe('renewals', () => {
  test("a refused renewal (6003, the stream limit) is the player's error, and says it is a renewal", async () => {
    let n = 0;
    const h = setup({}, () =>
      ++n === 1
        ? new HttpResponse(CLEARKEY_LICENSE, cors())
        : HttpResponse.json({ errorCode: '6003', message: 'stream limit' }, cors()),
    );
    const types: Array<string | null> = [];
    h.auth.on('licenseRequestSent', (e) => types.push(e.licenseRequestType));
    const update = h.cdm.nextUpdate();
    await h.encrypted();
    await update;
    const errored = new Promise<void>((resolve) => h.player.on('error', () => resolve()));
    h.cdm.renew();
    await errored;
    expect(types).toEqual(['license-request', 'license-renewal']);
    const cause = findLicenseAuthError(h.player.error()) as LicenseServiceError;
    expect(cause).toBeInstanceOf(LicenseServiceError);
    expect(cause.errorCode).toBe('6003');
    expect(h.player.error()?.code).toBe(5);
  });

  // The plugin hands getLicense `new Uint8Array(keyMessage)` for FairPlay: the renewal is known by
  // the bytes of the key message its `keymessage` event announced.
  test('a refused FairPlay renewal is the player’s error too, and says it is a renewal', async () => {
    let n = 0;
    const h = setup(
      { licenseServer: { 'com.apple.fps': LICENSE_URL }, fairplay: { certificate: 'AAEC' } },
      () =>
        ++n === 1
          ? HttpResponse.text('<ckc>BwgJ</ckc>', cors())
          : HttpResponse.json({ errorCode: '6003', message: 'stream limit' }, cors()),
    );
    const types: Array<string | null> = [];
    h.auth.on('licenseRequestSent', (e) => types.push(e.licenseRequestType));
    const update = h.cdm.nextUpdate();
    await h.encrypted(new TextEncoder().encode('skd://movie-1'));
    expect([...(await update)]).toEqual([7, 8, 9]);
    const errored = new Promise<void>((resolve) => h.player.on('error', () => resolve()));
    h.cdm.renew();
    await errored;
    expect(types).toEqual(['license-request', 'license-renewal']);
    expect(h.seen.license.map((l) => text(l.body))).toEqual(['spc=AQID', 'spc=AQID']);
    const cause = findLicenseAuthError(h.player.error()) as LicenseServiceError;
    expect(cause.errorCode).toBe('6003');
  });
});

test('a FairPlay certificate URL answering 404 is FAIRPLAY_CERTIFICATE, not a certificate', async () => {
  const h = setup({
    licenseServer: { 'com.apple.fps': LICENSE_URL },
    fairplay: { certificateUrl: `${LICENSE_URL}/fairplay.cer` },
  });
  server.use(
    http.get(`${LICENSE_URL}/fairplay.cer`, () =>
      HttpResponse.text('<html>Not Found</html>', cors({ status: 404 })),
    ),
  );
  const error = await new Promise<unknown>((resolve) =>
    h.auth.keySystems['com.apple.fps']!.getCertificate!({}, (e) => resolve(e)),
  );
  expect(error).toMatchObject({
    code: 'FAIRPLAY_CERTIFICATE',
    message: expect.stringContaining('HTTP 404'),
  });
});

test('the Widevine service certificate is what getCertificate gives the plugin', async () => {
  const h = setup({
    licenseServer: { 'com.widevine.alpha': LICENSE_URL },
    widevine: { certificate: 'AAEC' },
  });
  const cert = await new Promise<unknown>((resolve) =>
    h.auth.keySystems['com.widevine.alpha']!.getCertificate!({}, (_, c) => resolve(c)),
  );
  expect(cert).toEqual(new Uint8Array([0, 1, 2]));
});

describe("a source's own license URL (videojs-contrib-eme's per-source keySystems)", () => {
  const PER_SOURCE_URL = 'http://127.0.0.1:8443/per-source-license';
  const source = (keySystem: unknown) => ({
    src: 'http://localhost:3000/movie.mp4',
    type: 'video/mp4',
    keySystems: { 'org.w3.clearkey': keySystem },
  });

  test.each([
    ['a URL string', PER_SOURCE_URL],
    ['{ url }', { url: PER_SOURCE_URL }],
    ['{ licenseUri }', { licenseUri: PER_SOURCE_URL }],
  ])('given as %s, the request goes there with the token', async (_, keySystem) => {
    const h = setup();
    const perSource = newSeen();
    server.use(licenseServer(perSource, undefined, PER_SOURCE_URL));
    h.player.src(source(keySystem) as never);
    const update = h.cdm.nextUpdate();
    await h.encrypted();
    await update;
    expect(perSource.license.map((l) => l.header)).toEqual(['token-1-Widevine-movie-1']);
    expect(h.seen.license).toHaveLength(0);
  });

  test("it wins over a URL in the plugin's own options, which a source without one uses", async () => {
    const PLUGIN_URL = 'http://127.0.0.1:8443/plugin-wide-license';
    const [perSource, pluginWide] = [newSeen(), newSeen()];
    server.use(
      licenseServer(perSource, undefined, PER_SOURCE_URL),
      licenseServer(pluginWide, undefined, PLUGIN_URL),
    );
    const ask = async (src: object) => {
      const h = setup();
      // As if the app had configured the plugin with a URL before attaching the handle.
      const eme = (h.player as unknown as { eme: { options: { keySystems: object } } }).eme;
      Object.assign(eme.options.keySystems['org.w3.clearkey' as never], { url: PLUGIN_URL });
      h.player.src(src as never);
      const update = h.cdm.nextUpdate();
      await h.encrypted();
      await update;
    };
    await ask(source({ url: PER_SOURCE_URL }));
    expect([perSource.license.length, pluginWide.license.length]).toEqual([1, 0]);
    await ask({ src: 'http://localhost:3000/movie.mp4', type: 'video/mp4' });
    expect([perSource.license.length, pluginWide.license.length]).toEqual([1, 1]);
  });
});
