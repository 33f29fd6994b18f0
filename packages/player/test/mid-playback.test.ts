// License requests long after the first one (renewals, key rotation, a second period's key) and EME
// messages that are not license requests at all.
import { describe, expect, test } from 'vitest';
import { http, HttpResponse } from 'msw';
import {
  cors,
  LICENSE_ORIGIN,
  requestLicense,
  server,
  shaka,
  text,
  useLicenseAuthHarness,
} from './harness.ts';

const h = useLicenseAuthHarness();
const { setup, record } = h;

describe('requests in the middle of playback carry a token with enough life left', () => {
  test('a request after the token aged past the margin gets a fresh one; a renewal always does', async () => {
    let clock = 0;
    const { player, handle } = setup({ now: () => clock });
    const sent = record(handle, 'licenseRequestSent');
    await requestLicense(player);
    clock = 39_999; // 20.001 s of the 60 s left: reused
    await requestLicense(player, { sessionId: 'second-key' });
    clock = 40_000; // 20 s left: not enough
    await requestLicense(player, { sessionId: 'third-key' });
    // A renewal proves the stream still plays: never with a token used before, however young.
    await requestLicense(player, { licenseRequestType: 'license-renewal' });
    expect(sent.map((s) => [s.licenseRequestType, s.tokenSource])).toEqual([
      ['license-request', 'network'],
      ['license-request', 'cache'],
      ['license-request', 'network'],
      ['license-renewal', 'network'],
    ]);
    expect(h.seen.license.map((l) => l.header)).toEqual([
      'token-1-Widevine-movie-1',
      'token-1-Widevine-movie-1',
      'token-2-Widevine-movie-1',
      'token-3-Widevine-movie-1',
    ]);
  });

  test('tokenMinRemainingMs and tokenLifetimeMs set the margin (here the service’s 600 s window)', async () => {
    let clock = 0;
    const { player } = setup({
      now: () => clock,
      tokenLifetimeMs: 600_000,
      tokenMinRemainingMs: 120_000,
    });
    await requestLicense(player);
    clock = 479_999;
    await requestLicense(player, { sessionId: 'next-key' });
    clock = 480_000;
    await requestLicense(player, { sessionId: 'next-key' });
    expect(h.seen.token).toHaveLength(2);
  });

  test('key rotation: a new session’s license request mid-playback gets a fresh token', async () => {
    let clock = 0;
    const { player } = setup({ now: () => clock });
    await requestLicense(player, { sessionId: 'first-key' });
    clock = 45_000;
    await requestLicense(player, { sessionId: 'rotated-key' });
    expect(h.seen.license.map((l) => l.header)).toEqual([
      'token-1-Widevine-movie-1',
      'token-2-Widevine-movie-1',
    ]);
  });

  test('a second period with another cid gets its own token, then a fresh one when it aged', async () => {
    let clock = 0;
    const { player } = setup({
      now: () => clock,
      contentId: undefined,
      getContentId: (_drmInfo, request) => (request.sessionId === 'period-2' ? 'ad-1' : 'movie-1'),
    });
    await requestLicense(player, { sessionId: 'period-1' });
    clock = 10_000;
    await requestLicense(player, { sessionId: 'period-2' });
    clock = 55_000;
    await requestLicense(player, { sessionId: 'period-2', licenseRequestType: 'license-renewal' });
    expect(h.seen.token).toEqual([
      { cid: 'movie-1', drm_type: 'Widevine' },
      { cid: 'ad-1', drm_type: 'Widevine' },
      { cid: 'ad-1', drm_type: 'Widevine' },
    ]);
  });

  test('a token that expired at the service mid-session anyway (7011) is replaced once', async () => {
    let clock = 0;
    const { player } = setup(
      { now: () => clock },
      {
        license: () =>
          h.seen.license.length === 2
            ? HttpResponse.json({ errorCode: '7011', message: 'expired' }, cors())
            : new HttpResponse(new Uint8Array([1]), cors()),
      },
    );
    await requestLicense(player);
    clock = 30_000;
    await requestLicense(player, { sessionId: 'next-key' });
    expect(h.seen.license.map((l) => l.header)).toEqual([
      'token-1-Widevine-movie-1',
      'token-1-Widevine-movie-1',
      'token-2-Widevine-movie-1',
    ]);
  });
});

describe('only license messages carry the token', () => {
  const INDIVIDUALIZATION = `${LICENSE_ORIGIN}/individualize`;

  test('an individualization request goes out untouched: no token, no body rewrite, answer as sent', async () => {
    const { player, handle } = setup({ fairplay: {} });
    const seen: Array<{ header: string | null; body: string }> = [];
    server.use(
      http.post(INDIVIDUALIZATION, async ({ request }) => {
        seen.push({ header: request.headers.get('x-drm-custom-data'), body: await request.text() });
        return HttpResponse.json({ errorCode: '7011', message: 'not ours to read' }, cors());
      }),
    );
    const sent = record(handle, 'licenseRequestSent');
    for (const keySystem of ['com.widevine.alpha', 'com.apple.fps']) {
      const response = await requestLicense(player, {
        keySystem,
        uri: INDIVIDUALIZATION,
        licenseRequestType: 'individualization-request',
        body: new TextEncoder().encode('challenge'),
      });
      expect(JSON.parse(text(response.data))).toMatchObject({ errorCode: '7011' });
    }
    expect(seen).toEqual([
      { header: null, body: 'challenge' },
      { header: null, body: 'challenge' },
    ]);
    expect(h.seen.token).toEqual([]);
    expect(sent).toEqual([]);
  });

  test.each(['license-request', 'license-renewal', 'license-release', null])(
    'a %s message carries it (null: a request the app built itself)',
    async (licenseRequestType) => {
      const { player } = setup();
      await requestLicense(player, { licenseRequestType });
      expect(h.seen.license[0]?.header).toBe('token-1-Widevine-movie-1');
    },
  );

  test('a server certificate request does not carry it', async () => {
    const { player } = setup();
    let header: string | null = 'unset';
    server.use(
      http.get(`${LICENSE_ORIGIN}/widevine.cert`, ({ request }) => {
        header = request.headers.get('x-drm-custom-data');
        return new HttpResponse(new Uint8Array([0x08, 0x05]), cors());
      }),
    );
    const request = shaka.net.NetworkingEngine.makeRequest(
      [`${LICENSE_ORIGIN}/widevine.cert`],
      shaka.net.NetworkingEngine.defaultRetryParameters(),
    );
    const response = await player
      .getNetworkingEngine()!
      .request(shaka.net.NetworkingEngine.RequestType.SERVER_CERTIFICATE, request).promise;
    expect(new Uint8Array(response.data as ArrayBuffer)).toEqual(new Uint8Array([0x08, 0x05]));
    expect(header).toBeNull();
    expect(h.seen.token).toEqual([]);
  });
});
