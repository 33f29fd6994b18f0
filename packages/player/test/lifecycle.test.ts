import { describe, expect, test } from 'vitest';
import { HttpResponse } from 'msw';
import { attachLicenseAuth, LicenseAuthError, type LicenseAuthOptions } from '../src/index.ts';
import {
  cors,
  LICENSE_URL,
  makePlayer,
  requestLicense,
  server,
  SITE,
  tokenEndpoint,
  useLicenseAuthHarness,
} from './harness.ts';

const h = useLicenseAuthHarness();

describe('detach()', () => {
  test('removes every filter and listener', async () => {
    const { player, handle } = h.setup(
      {},
      { license: () => HttpResponse.json({ error_code: 'X', message: 'm' }, cors()) },
    );
    const events: string[] = [];
    for (const name of ['tokenRequested', 'licenseRequestSent', 'licenseAnswered'] as const) {
      handle.on(name, () => events.push(name));
    }
    handle.detach();
    handle.detach(); // a second call is harmless
    const spc = new Uint8Array([1, 2]);
    const response = await requestLicense(player, { keySystem: 'com.apple.fps', body: spc });
    // No header, no token fetch, no body rewrite, and the error body is no longer mapped.
    expect(h.seen.license[0]?.header).toBeNull();
    expect(h.seen.license[0]?.body).toEqual(spc);
    expect(h.seen.token).toEqual([]);
    expect(JSON.parse(new TextDecoder().decode(response.data as ArrayBuffer))).toEqual({
      error_code: 'X',
      message: 'm',
    });
    expect(events).toEqual([]);
    // Neither loading nor prefetch() fetch tokens any more.
    player.configure({ drm: { preferredKeySystems: ['com.widevine.alpha'] } });
    expect(await handle.prefetch()).toBe(false);
    expect(h.seen.token).toEqual([]);
  });

  test('takes out the license servers it added and keeps the app’s own', () => {
    const player = makePlayer();
    h.players.push(player);
    player.configure({ drm: { servers: { 'com.microsoft.playready': `${SITE}/app-playready` } } });
    const handle = attachLicenseAuth(player, {
      contentId: 'c',
      tokenUrl: `${SITE}/t`,
      licenseServer: LICENSE_URL,
    });
    expect(player.getConfiguration().drm.servers).toEqual({
      'com.widevine.alpha': LICENSE_URL,
      'com.microsoft.playready': `${SITE}/app-playready`,
      'com.microsoft.playready.recommendation': LICENSE_URL,
    });
    handle.detach();
    expect(player.getConfiguration().drm.servers).toEqual({
      'com.microsoft.playready': `${SITE}/app-playready`,
    });
  });
});

describe('license server configuration', () => {
  // On Safari, a FairPlay server makes Shaka play every HLS load natively
  // (streaming.useNativeHlsForFairPlay): one URL for all must not switch that on by itself.
  test('one URL fills FairPlay only when fairplay options are given', () => {
    const servers = (options: object) => {
      const player = makePlayer();
      h.players.push(player);
      attachLicenseAuth(player, { tokenUrl: `${SITE}/t`, licenseServer: LICENSE_URL, ...options });
      return Object.keys(player.getConfiguration().drm.servers);
    };
    expect(servers({})).not.toContain('com.apple.fps');
    expect(servers({ fairplay: { certificate: new Uint8Array([1]) } })).toContain('com.apple.fps');
    expect(servers({ licenseServer: { 'com.apple.fps': LICENSE_URL } })).toEqual(['com.apple.fps']);
  });

  test('a map sets one server per key system, ClearKey included when named', () => {
    const { player } = h.setup({
      licenseServer: {
        'org.w3.clearkey': `${LICENSE_URL}/ck`,
        'com.widevine.alpha': `${LICENSE_URL}/wv`,
      },
    });
    expect(player.getConfiguration().drm.servers).toEqual({
      'org.w3.clearkey': `${LICENSE_URL}/ck`,
      'com.widevine.alpha': `${LICENSE_URL}/wv`,
    });
  });

  test('one URL also serves the key systems named in drmTypes (the emulator setup)', () => {
    const { player } = h.setup({
      licenseServer: LICENSE_URL,
      drmTypes: { 'org.w3.clearkey': 'Widevine' },
    });
    expect(player.getConfiguration().drm.servers['org.w3.clearkey']).toBe(LICENSE_URL);
  });
});

test('the Widevine service certificate (widevine.certificateUrl) goes into drm.advanced, and out on detach', () => {
  const { player, handle } = h.setup({
    licenseServer: LICENSE_URL,
    widevine: { certificateUrl: `${LICENSE_URL}/widevineCert.do?siteId=S` },
  });
  expect(player.getConfiguration().drm.advanced?.['com.widevine.alpha']?.serverCertificateUri).toBe(
    `${LICENSE_URL}/widevineCert.do?siteId=S`,
  );
  handle.detach();
  expect(player.getConfiguration().drm.advanced?.['com.widevine.alpha']).toBeUndefined();
});

describe('gateway mode', () => {
  test('customDataUrl: the custom data goes into the header', async () => {
    const { player, handle } = h.setup({
      tokenUrl: undefined,
      customDataUrl: `${SITE}/api/custom-data`,
    });
    server.use(
      tokenEndpoint(
        h.seen,
        () => HttpResponse.text('eyJkcm1fdHlwZSI6IldpZGV2aW5lIn0='),
        `${SITE}/api/custom-data`,
      ),
    );
    const requested = h.record(handle, 'tokenRequested');
    await requestLicense(player);
    expect(h.seen.token).toEqual([{ cid: 'movie-1', drm_type: 'Widevine' }]);
    expect(h.seen.license[0]?.header).toBe('eyJkcm1fdHlwZSI6IldpZGV2aW5lIn0=');
    expect(requested[0]?.kind).toBe('custom data');
  });

  test('getCustomData() is called with cid and drmType', async () => {
    const calls: unknown[] = [];
    const { player } = h.setup({
      tokenUrl: undefined,
      getCustomData: async ({ cid, drmType }) => (calls.push([cid, drmType]), 'custom-data-1'),
    });
    await requestLicense(player, { keySystem: 'com.microsoft.playready' });
    expect(calls).toEqual([['movie-1', 'PlayReady']]);
    expect(h.seen.license[0]?.header).toBe('custom-data-1');
  });
});

describe('events', () => {
  test('token and license events carry what happened and how long it took', async () => {
    let clock = 0;
    const { player, handle } = h.setup(
      { now: () => clock },
      {
        token: () => {
          clock += 120;
          return HttpResponse.text('t');
        },
        license: () => {
          clock += 80;
          return new HttpResponse(new Uint8Array([1]), cors());
        },
      },
    );
    const received = h.record(handle, 'tokenReceived');
    const sent = h.record(handle, 'licenseRequestSent');
    const answered = h.record(handle, 'licenseAnswered');
    await requestLicense(player);
    expect(received).toEqual([
      { cid: 'movie-1', drmType: 'Widevine', kind: 'token', durationMs: 120 },
    ]);
    expect(sent).toEqual([
      {
        keySystem: 'com.widevine.alpha',
        drmType: 'Widevine',
        cid: 'movie-1',
        attempt: 0,
        tokenWaitMs: 120,
        tokenSource: 'network',
        licenseRequestType: 'license-request',
        refreshed: false,
      },
    ]);
    expect(answered).toEqual([
      {
        keySystem: 'com.widevine.alpha',
        drmType: 'Widevine',
        cid: 'movie-1',
        status: 200,
        durationMs: 80,
      },
    ]);
  });

  test('a listener that throws does not break the license request', async () => {
    const { player, handle } = h.setup();
    handle.on('licenseRequestSent', () => {
      throw new Error('app bug');
    });
    const unhandled: unknown[] = [];
    const onError = (e: unknown) => unhandled.push(e);
    process.on('uncaughtException', onError);
    try {
      await requestLicense(player);
      await new Promise((r) => setTimeout(r, 0));
    } finally {
      process.off('uncaughtException', onError);
    }
    expect(h.seen.license).toHaveLength(1);
    // The app's bug is still reported, outside the license path.
    expect(unhandled).toEqual([new Error('app bug')]);
  });

  test('on() returns an unsubscribe function', async () => {
    const { player, handle } = h.setup();
    const seenEvents: unknown[] = [];
    const off = handle.on('tokenRequested', (e) => seenEvents.push(e));
    off();
    await requestLicense(player);
    expect(seenEvents).toEqual([]);
  });
});

describe('options are checked at attach time', () => {
  const attach = (options: unknown) => () =>
    attachLicenseAuth(makePlayer(), options as LicenseAuthOptions);

  test('every broken rule is listed in one error', () => {
    let error: unknown;
    try {
      attach({
        tokenUrl: '',
        getToken: 'x',
        header: 'bad header',
        tokenTimeoutMs: -1,
        licenseServer: { a: 3 },
      })();
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(LicenseAuthError);
    expect((error as LicenseAuthError).code).toBe('INVALID_OPTIONS');
    const message = (error as LicenseAuthError).message;
    for (const part of [
      'tokenUrl must be a non-empty string',
      'getToken must be a function',
      'give only one of tokenUrl, getToken',
      'licenseServer must be a map of key system to string',
      'header must be an HTTP header name',
      'tokenTimeoutMs must be a number >= 0',
    ]) {
      expect(message).toContain(part);
    }
  });

  test.each([
    [undefined, 'options must be an object'],
    [
      { contentId: 'c' },
      'one of tokenUrl, getToken, customDataUrl, getCustomData, licenseProxy is required',
    ],
    [
      { contentId: 'c', tokenUrl: '/t', tokenMinRemainingMs: 70_000 },
      'tokenMinRemainingMs must be less than tokenLifetimeMs',
    ],
    [
      { contentId: 'c', tokenUrl: '/t', retry: { maxAttempts: -1 } },
      'retry.maxAttempts must be a number >= 0',
    ],
    [
      { contentId: 'c', tokenUrl: '/t', drmTypes: [] },
      'drmTypes must be a map of key system to string',
    ],
    [
      { contentId: 'c', tokenUrl: '/t', freshTokenCodes: ['TOKEN_EXPIRED'] },
      'freshTokenCodes must be a list of service codes',
    ],
    [{ contentId: 'c', tokenUrl: '/t', freshTokenCodes: '7011' }, 'freshTokenCodes must be a list'],
    [
      { contentId: 'c', tokenUrl: '/t', sessionRetries: -1 },
      'sessionRetries must be a number >= 0',
    ],
  ])('%j is refused: %s', (options, part) => {
    expect(attach(options)).toThrow(part);
  });

  test('an axios option that is not an axios instance is refused', () => {
    expect(attach({ contentId: 'c', tokenUrl: '/t', axios: {} })).toThrow(
      'axios must be an axios instance',
    );
  });

  test('a player that is not a shaka.Player is refused', () => {
    expect(() => attachLicenseAuth({} as never, { contentId: 'c', tokenUrl: '/t' })).toThrow(
      'player must be a shaka.Player or shaka.offline.Storage',
    );
  });
});
