// The license service's dialect (license-service-wire.md sections 1 and 2): refusals come with HTTP
// 200 as JSON `{"errorCode","message"}`, and with the token's response_format `json` the license is
// wrapped in `{"license", "device_info", ...}`. Every license answer is read before the CDM sees it.
import { describe, expect, test } from 'vitest';
import { HttpResponse } from 'msw';
import { findLicenseAuthError, LicenseAuthError, LicenseServiceError } from '../src/index.ts';
import { cors, rejection, requestLicense, shaka, text, useLicenseAuthHarness } from './harness.ts';

const h = useLicenseAuthHarness();
const { setup, record, filterError } = h;

const refusal = (errorCode: string | number, message = 'refused') =>
  HttpResponse.json({ errorCode, message }, cors());
const LICENSE = new Uint8Array([0x08, 0x02, 0x12, 0x10]);
const bytes = (data: ArrayBuffer | ArrayBufferView) =>
  new Uint8Array(data instanceof ArrayBuffer ? data : data.buffer);
/** Refuses the first license request with `first`, then answers the license. */
const firstRefused = (first: () => Response) => () =>
  h.seen.license.length === 1 ? first() : new HttpResponse(LICENSE, cors());

describe('a refusal a fresh token can fix', () => {
  test.each([
    ['7011 (token expired) as a string', '7011'],
    ['7011 as a number, as one SDK sends it', 7011],
    ['7011 for a token from the future (the service has no code of its own for it)', '7011'],
  ])(
    '%s: one fresh token, the same request re-sent once, the CDM gets the license',
    async (_, code) => {
      const { player, handle } = setup(
        {},
        { license: firstRefused(() => refusal(code, 'token outside its window')) },
      );
      const sent = record(handle, 'licenseRequestSent');
      const answered = record(handle, 'licenseAnswered');
      const response = await requestLicense(player, { body: new Uint8Array([4, 5, 6]) });
      expect(bytes(response.data)).toEqual(LICENSE);
      expect(h.seen.token).toHaveLength(2);
      expect(h.seen.license.map((l) => [l.header, Array.from(l.body)])).toEqual([
        ['token-1-Widevine-movie-1', [4, 5, 6]],
        ['token-2-Widevine-movie-1', [4, 5, 6]],
      ]);
      expect(sent.map((s) => [s.refreshed, s.tokenSource])).toEqual([
        [false, 'network'],
        [true, 'network'],
      ]);
      const refused = answered[0]?.error as LicenseServiceError;
      expect([refused.errorCode, refused.serviceMessage]).toEqual([
        String(code),
        'token outside its window',
      ]);
      expect(answered[1]).toMatchObject({ status: 200 });
      expect(answered[1]?.error).toBeUndefined();
    },
  );

  test('the re-send goes through the networking engine: other filters see it and the fresh token is reused after', async () => {
    const { player } = setup({}, { license: firstRefused(() => refusal('7011')) });
    const types: Array<string | null> = [];
    player.getNetworkingEngine()!.registerRequestFilter((type, request) => {
      if (type === shaka.net.NetworkingEngine.RequestType.LICENSE)
        types.push(request.licenseRequestType);
    });
    await requestLicense(player, { licenseRequestType: 'license-renewal' });
    expect(types).toEqual(['license-renewal', 'license-renewal']);
    await requestLicense(player);
    expect(h.seen.license.map((l) => l.header)).toEqual([
      'token-1-Widevine-movie-1',
      'token-2-Widevine-movie-1',
      'token-2-Widevine-movie-1',
    ]);
  });

  test('refused again with the fresh token: a typed error, no third token (no token storm)', async () => {
    const { player, handle } = setup({}, { license: () => refusal('7011', 'expired') });
    const failed = record(handle, 'licenseAnswered');
    const cause = filterError(await rejection(requestLicense(player, { maxAttempts: 5 })));
    expect(cause).toBeInstanceOf(LicenseServiceError);
    expect((cause as LicenseServiceError).errorCode).toBe('7011');
    expect((cause as LicenseServiceError).message).toContain('again with a fresh token');
    expect((cause as LicenseServiceError).message).toContain('check the site clock');
    expect(h.seen.token).toHaveLength(2);
    expect(h.seen.license).toHaveLength(2);
    expect(failed.map((a) => (a.error as LicenseServiceError).errorCode)).toEqual(['7011', '7011']);
  });

  test('concurrent refused requests share one fresh token', async () => {
    const { player, handle } = setup(
      {},
      {
        license: ({ request }) =>
          request.headers.get('x-drm-custom-data') === 'token-1-Widevine-movie-1'
            ? refusal('7011')
            : new HttpResponse(LICENSE, cors()),
      },
    );
    // The token is fetched first, so all three requests go out with it.
    await handle.prefetch({ keySystem: 'com.widevine.alpha' });
    await Promise.all([requestLicense(player), requestLicense(player), requestLicense(player)]);
    expect(h.seen.token).toHaveLength(2);
    expect(h.seen.license.filter((l) => l.header === 'token-2-Widevine-movie-1')).toHaveLength(3);
  });

  test('freshTokenCodes replaces the list', async () => {
    const { player } = setup(
      { freshTokenCodes: ['7019'] },
      { license: firstRefused(() => refusal('7019')) },
    );
    await requestLicense(player);
    expect(h.seen.token).toHaveLength(2);

    const other = setup({ freshTokenCodes: [7019] }, { license: () => refusal('7011') });
    const cause = filterError(await rejection(requestLicense(other.player)));
    expect((cause as LicenseServiceError).errorCode).toBe('7011');
    expect(h.seen.token).toHaveLength(1);
  });

  test('a 4xx answer carrying a fixable code is retried by Shaka with a fresh token', async () => {
    const { player } = setup(
      {},
      {
        license: firstRefused(() =>
          HttpResponse.json({ errorCode: '7011', message: 'expired' }, cors({ status: 400 })),
        ),
      },
    );
    await requestLicense(player);
    expect(h.seen.license.map((l) => l.header)).toEqual([
      'token-1-Widevine-movie-1',
      'token-2-Widevine-movie-1',
    ]);
  });

  test('a 403 still gets a fresh token, for sites that proxy the service', async () => {
    const { player, handle } = setup(
      {},
      { license: firstRefused(() => new HttpResponse(null, cors({ status: 403 }))) },
    );
    const sent = record(handle, 'licenseRequestSent');
    await requestLicense(player);
    expect(sent.map((s) => s.refreshed)).toEqual([false, true]);
    expect(h.seen.token).toHaveLength(2);
  });
});

describe('a refusal no token can fix is a typed error at once', () => {
  test.each([
    ['1003', 'site ID unknown', 'check the site ID'],
    ['7019', 'hash mismatch', 'site access key'],
    ['7012', 'cid mismatch', 'check the cid'],
    ['6003', 'too many streams', 'concurrent stream limit'],
    ['9999', 'mode not supported', "check the site's settings"],
  ])('%s: named with the service message and what to check', async (code, message, hint) => {
    const { player, handle } = setup({}, { license: () => refusal(code, message) });
    const answered = record(handle, 'licenseAnswered');
    const shakaError = await rejection(requestLicense(player, { maxAttempts: 3 }));
    const cause = filterError(shakaError) as LicenseServiceError;
    expect(cause).toBeInstanceOf(LicenseServiceError);
    expect([cause.code, cause.errorCode, cause.serviceMessage, cause.status]).toEqual([
      'LICENSE_SERVICE_ERROR',
      code,
      message,
      200,
    ]);
    expect(cause.message).toContain(`(${code}: ${message}, HTTP 200)`);
    expect(cause.message).toContain(hint);
    // Found by the app in what Shaka's `error` event carries; and in the package's own events.
    expect(findLicenseAuthError(licenseRequestFailed(shakaError))).toBe(cause);
    expect(answered.map((a) => a.error)).toEqual([cause]);
    expect(h.seen.license).toHaveLength(1);
    expect(h.seen.token).toHaveLength(1);
  });

  test("8002 names the site's own code and message from the nested JSON", async () => {
    const nested = JSON.stringify({ ERROR: '4031', MESSAGE: 'Subscription ended' });
    const { player } = setup({}, { license: () => refusal('8002', nested) });
    const cause = filterError(await rejection(requestLicense(player))) as LicenseServiceError;
    expect([cause.errorCode, cause.siteErrorCode, cause.siteErrorMessage]).toEqual([
      '8002',
      '4031',
      'Subscription ended',
    ]);
    expect(cause.serviceMessage).toBe(nested);
    expect(cause.message).toContain('(8002: site code 4031 "Subscription ended", HTTP 200)');
    expect(cause.message).toContain("the site's gateway refused this user");
    expect(h.seen.token).toHaveLength(1);
  });

  test('8002 whose message is not JSON keeps the message as the service sent it', async () => {
    const { player } = setup({}, { license: () => refusal(8002, 'denied by site') });
    const cause = filterError(await rejection(requestLicense(player))) as LicenseServiceError;
    expect([cause.errorCode, cause.siteErrorCode, cause.serviceMessage]).toEqual([
      '8002',
      undefined,
      'denied by site',
    ]);
    expect(cause.message).toContain('(8002: denied by site, HTTP 200)');
  });

  test('extra members the emulator adds are ignored, detail kept as sent', async () => {
    const { player } = setup(
      {},
      {
        license: () =>
          HttpResponse.json(
            { errorCode: '7019', message: 'm', reason: 'HASH_MISMATCH', fix: 'x', detail: 'd' },
            cors(),
          ),
      },
    );
    const cause = filterError(await rejection(requestLicense(player))) as LicenseServiceError;
    expect([cause.errorCode, cause.detail]).toEqual(['7019', 'd']);
  });
});

describe('FairPlay answers are read for JSON before base64 decoding', () => {
  const CKC = new Uint8Array([0xc0, 0xc1, 0xc2]);
  const SPC = new Uint8Array([0xfb, 0xff, 0x00]);
  const b64 = (b: Uint8Array) => btoa(String.fromCharCode(...b));

  test('a 7011 refusal is re-sent once with the same form body, then the CKC is decoded', async () => {
    const { player } = setup(
      {},
      {
        license: () =>
          h.seen.license.length === 1 ? refusal('7011') : HttpResponse.text(b64(CKC), cors()),
      },
    );
    const response = await requestLicense(player, { keySystem: 'com.apple.fps', body: SPC });
    expect(bytes(response.data)).toEqual(CKC);
    const form = `spc=${encodeURIComponent(b64(SPC))}`;
    expect(h.seen.license.map((l) => [text(l.body), l.contentType])).toEqual([
      [form, 'application/x-www-form-urlencoded'],
      [form, 'application/x-www-form-urlencoded'],
    ]);
  });

  test('a 7019 refusal is a LicenseServiceError, not an unreadable CKC', async () => {
    const { player } = setup({}, { license: () => refusal('7019') });
    const cause = filterError(
      await rejection(requestLicense(player, { keySystem: 'com.apple.fps', body: SPC })),
    );
    expect((cause as LicenseServiceError).errorCode).toBe('7019');
  });
});

describe('response_format json: the license is unwrapped before the CDM', () => {
  const jsonAnswer = (license: unknown) =>
    HttpResponse.json(
      { license, device_info: { device_id: 'd', session_id: 's' }, persistent: false },
      cors(),
    );

  test('Widevine: hex text to bytes', async () => {
    const { player } = setup({}, { license: () => jsonAnswer('080212100A') });
    const response = await requestLicense(player);
    expect(bytes(response.data)).toEqual(new Uint8Array([0x08, 0x02, 0x12, 0x10, 0x0a]));
  });

  test('ClearKey: the license JSON text, as the ClearKey CDM takes it', async () => {
    const clearKey = JSON.stringify({ keys: [{ kty: 'oct', k: 'AAAA', kid: 'BBBB' }], type: 't' });
    const { player } = setup({}, { license: () => jsonAnswer(clearKey) });
    const response = await requestLicense(player, { keySystem: 'org.w3.clearkey' });
    expect(text(response.data)).toBe(clearKey);
  });

  test('a ClearKey stand-in for a Widevine token: the hex of its license JSON, decoded', async () => {
    const clearKey = JSON.stringify({ keys: [{ kty: 'oct', k: 'AAAA', kid: 'BBBB' }], type: 't' });
    const hex = [...new TextEncoder().encode(clearKey)]
      .map((b) => b.toString(16).padStart(2, '0'))
      .join('');
    const { player } = setup({}, { license: () => jsonAnswer(hex) });
    const response = await requestLicense(player, { keySystem: 'org.w3.clearkey' });
    expect(text(response.data)).toBe(clearKey);
  });

  test('PlayReady: the text the CDM takes', async () => {
    const xml = '<soap:Envelope><License>abc</License></soap:Envelope>';
    const { player } = setup({}, { license: () => jsonAnswer(xml) });
    const response = await requestLicense(player, { keySystem: 'com.microsoft.playready' });
    expect(text(response.data)).toBe(xml);
  });

  test('FairPlay: the base64 CKC text, decoded to the CKC', async () => {
    const { player } = setup({}, { license: () => jsonAnswer(btoa('\u00c0\u00c1')) });
    const response = await requestLicense(player, {
      keySystem: 'com.apple.fps',
      body: new Uint8Array([1]),
    });
    expect(bytes(response.data)).toEqual(new Uint8Array([0xc0, 0xc1]));
  });

  test('after a re-send with a fresh token the license is unwrapped exactly once', async () => {
    const { player } = setup(
      {},
      { license: () => (h.seen.license.length === 1 ? refusal('7011') : jsonAnswer('0a0b')) },
    );
    const response = await requestLicense(player);
    expect(bytes(response.data)).toEqual(new Uint8Array([0x0a, 0x0b]));
  });

  test('a Widevine license that is neither hex nor base64 fails with LICENSE_RESPONSE', async () => {
    const { player, handle } = setup({}, { license: () => jsonAnswer('not a license!') });
    const answered = record(handle, 'licenseAnswered');
    const cause = filterError(await rejection(requestLicense(player)));
    expect(cause).toBeInstanceOf(LicenseAuthError);
    expect((cause as LicenseAuthError).code).toBe('LICENSE_RESPONSE');
    expect((cause as LicenseAuthError).message).toContain('response_format');
    expect(answered[0]?.error).toBe(cause);
  });

  test('an empty license fails with LICENSE_RESPONSE', async () => {
    const { player } = setup({}, { license: () => jsonAnswer('') });
    const cause = filterError(await rejection(requestLicense(player)));
    expect((cause as LicenseAuthError).code).toBe('LICENSE_RESPONSE');
  });
});

/** What the DRM engine hands to `drm.failureCallback` and the player's `error` event. */
function licenseRequestFailed(networkError: unknown) {
  const { Severity, Category, Code } = shaka.util.Error;
  return new shaka.util.Error(
    Severity.CRITICAL,
    Category.DRM,
    Code.LICENSE_REQUEST_FAILED,
    networkError,
  );
}

describe("answers told apart by shape (a token builder's error is not the service's)", () => {
  test('errorCode beside a license is a refusal: the CDM never gets the license', async () => {
    const { player } = setup(
      {},
      {
        license: () =>
          HttpResponse.json({ errorCode: '7019', message: 'hash', license: '0a0b' }, cors()),
      },
    );
    const cause = filterError(await rejection(requestLicense(player))) as LicenseServiceError;
    expect(cause).toBeInstanceOf(LicenseServiceError);
    expect(cause.errorCode).toBe('7019');
  });

  test("a token builder's error in a license answer is LICENSE_RESPONSE naming its code, not a refusal", async () => {
    const { player, handle } = setup(
      {},
      {
        license: () =>
          HttpResponse.json({ error_code: '7011', error_message: 'bad site key' }, cors()),
      },
    );
    const sent = record(handle, 'licenseRequestSent');
    const cause = filterError(await rejection(requestLicense(player))) as LicenseAuthError;
    expect(cause).not.toBeInstanceOf(LicenseServiceError);
    expect(cause.code).toBe('LICENSE_RESPONSE');
    expect(cause.message).toContain("a token builder's error (7011: bad site key)");
    // Its 7011 is the builder's, not the service's "token expired": no fresh token is tried.
    expect(sent).toHaveLength(1);
    expect(h.seen.token).toHaveLength(1);
  });

  test("a site that answers its token builder's error with HTTP 200 gives a TokenFetchError, not a token", async () => {
    const { player } = setup(
      {},
      {
        token: () => HttpResponse.json({ error_code: 1003, error_message: 'unknown site' }, cors()),
      },
    );
    const cause = filterError(await rejection(requestLicense(player))) as LicenseAuthError;
    expect(cause).toMatchObject({ name: 'TokenFetchError', code: 'TOKEN_FETCH_FAILED' });
    expect(cause.message).toContain('its token builder failed with 1003: unknown site');
    expect(h.seen.license).toEqual([]);
  });
});

describe("the app's own filters around a re-send with a fresh token", () => {
  test('a request filter that wraps the challenge (before attach) and a response filter that unwraps (after) each run once per request and per answer', async () => {
    const player = h.setupPlayerOnly();
    const net = player.getNetworkingEngine()!;
    const LICENSE_TYPE = shaka.net.NetworkingEngine.RequestType.LICENSE;
    const wraps: string[] = [];
    // The app wraps the CDM's challenge in its own envelope, as sites behind a proxy do.
    net.registerRequestFilter((type, request) => {
      if (type !== LICENSE_TYPE) return;
      const inner = bytes(request.body as ArrayBuffer);
      wraps.push(Array.from(inner).join(','));
      request.body = new Uint8Array([0xee, ...inner]);
    });
    const handle = h.attach(player, {}, { license: firstRefused(() => refusal('7011')) });
    const strips: number[] = [];
    // ...and takes its own envelope off the license (a byte in front), after the handle's filter.
    net.registerResponseFilter((type, response) => {
      if (type !== LICENSE_TYPE) return;
      const data = bytes(response.data);
      strips.push(data.length);
      response.data = data.slice(1);
    });
    const sent = record(handle, 'licenseRequestSent');
    const response = await requestLicense(player, { body: new Uint8Array([4, 5, 6]) });
    expect(h.seen.license.map((l) => Array.from(l.body))).toEqual([
      [0xee, 4, 5, 6],
      [0xee, 4, 5, 6],
    ]);
    // Once for the refused request, once for the re-send: each time on the CDM's own challenge.
    expect(wraps).toEqual(['4,5,6', '4,5,6']);
    expect(sent.map((s) => s.refreshed)).toEqual([false, true]);
    // The license the CDM gets lost its first byte once, not twice.
    expect(bytes(response.data)).toEqual(LICENSE.slice(1));
    expect(strips).toEqual([LICENSE.length, LICENSE.length]);
  });
});
