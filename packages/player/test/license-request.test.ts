// The license requests the hls.js, dash.js and video.js adapters send themselves (engine), against
// msw: the service's dialect (200 refusals, one fresh token and one re-send), HTTP failures and
// retries, deadlines, FairPlay and PlayReady bodies.
import { HttpResponse } from 'msw';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { createEngine, type Engine } from '../src/engine/engine.ts';
import type { EngineEvents } from '../src/engine/events.ts';
import { createLicenseSender } from '../src/engine/license-request.ts';
import { resolveOptions, type EngineOptions } from '../src/engine/options.ts';
import { LicenseAuthError, LicenseServiceError } from '../src/hls/index.ts';
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
afterEach(() => server.resetHandlers());
afterAll(() => server.close());

const CLEARKEY_LICENSE = '{"keys":[{"kty":"oct","k":"AAAA","kid":"BBBB"}],"type":"temporary"}';
const refusal = (errorCode: string | number, message = 'refused') =>
  HttpResponse.json({ errorCode, message }, cors());

function setup(
  options: Partial<EngineOptions> = {},
  answers: {
    license?: Parameters<typeof licenseServer>[1];
    token?: Parameters<typeof tokenEndpoint>[1];
  } = {},
) {
  const seen: Seen = newSeen();
  server.use(
    preflight,
    tokenEndpoint(seen, answers.token),
    licenseServer(seen, answers.license ?? (() => new HttpResponse(CLEARKEY_LICENSE, cors()))),
  );
  const engine: Engine = createEngine(
    resolveOptions({
      contentId: 'movie-1',
      tokenUrl: TOKEN_URL,
      retry: { baseDelayMs: 1 },
      ...options,
    }),
  );
  const sender = createLicenseSender(engine);
  const session = engine.loads.current();
  const events: Array<[keyof EngineEvents, unknown]> = [];
  for (const name of ['licenseRequestSent', 'licenseAnswered', 'tokenRequested'] as const) {
    engine.emitter.on(name, (event) => events.push([name, event]));
  }
  const send = (init: { keySystem?: string; body?: Uint8Array; url?: string } = {}) =>
    sender({
      keySystem: init.keySystem ?? 'org.w3.clearkey',
      drmType:
        init.keySystem === 'com.apple.fps'
          ? 'FairPlay'
          : init.keySystem?.includes('playready')
            ? 'PlayReady'
            : 'Widevine',
      cid: 'movie-1',
      url: init.url ?? LICENSE_URL,
      body: init.body ?? new Uint8Array([1, 2, 3]),
      licenseRequestType: 'license-request',
      session,
    });
  return { seen, engine, sender, session, events, send };
}

async function failure(promise: Promise<unknown>): Promise<LicenseAuthError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(LicenseAuthError);
    return error as LicenseAuthError;
  }
  throw new Error('expected a rejection');
}

describe('a license request the adapter sends itself', () => {
  test('carries the token in the header and the CDM message as its body, and resolves with the license', async () => {
    const h = setup();
    const license = await h.send();
    expect(text(license)).toBe(CLEARKEY_LICENSE);
    expect(h.seen.license).toHaveLength(1);
    expect(h.seen.license[0]?.header).toBe('token-1-Widevine-movie-1');
    expect([...(h.seen.license[0]?.body ?? [])]).toEqual([1, 2, 3]);
    expect(h.seen.token).toEqual([{ cid: 'movie-1', drm_type: 'Widevine' }]);
  });

  test('gets a json-format license unwrapped to what the CDM takes', async () => {
    const h = setup(
      {},
      {
        license: () =>
          HttpResponse.json({ license: CLEARKEY_LICENSE, device_info: { os: 'x' } }, cors()),
      },
    );
    expect(text(await h.send())).toBe(CLEARKEY_LICENSE);
  });

  test('answered 7011 in an HTTP 200 refusal, fetches one fresh token and sends the same body once more', async () => {
    let n = 0;
    const h = setup(
      {},
      {
        license: () =>
          ++n === 1 ? refusal('7011', 'token expired') : new HttpResponse(CLEARKEY_LICENSE, cors()),
      },
    );
    const license = await h.send();
    expect(text(license)).toBe(CLEARKEY_LICENSE);
    expect(h.seen.license.map((l) => l.header)).toEqual([
      'token-1-Widevine-movie-1',
      'token-2-Widevine-movie-1',
    ]);
    expect(h.seen.license[1]?.body).toEqual(h.seen.license[0]?.body);
    const sent = h.events.filter(([name]) => name === 'licenseRequestSent').map(([, e]) => e);
    expect(sent).toMatchObject([{ refreshed: false }, { refreshed: true }]);
    const answered = h.events.filter(([name]) => name === 'licenseAnswered').map(([, e]) => e);
    expect(answered).toHaveLength(2);
    expect((answered[0] as { error: LicenseServiceError }).error.errorCode).toBe('7011');
    expect(answered[1]).not.toHaveProperty('error');
  });

  test('6001 is no code of the service: a refusal with it is final, sent once, one token', async () => {
    const h = setup({}, { license: () => refusal(6001) });
    const error = await failure(h.send());
    expect((error as LicenseServiceError).errorCode).toBe('6001');
    expect(h.seen.license).toHaveLength(1);
    expect(h.seen.token).toHaveLength(1);
  });

  test('refused 7011 again after the fresh token, rejects with the second refusal and sends nothing more', async () => {
    const h = setup({}, { license: () => refusal('7011', 'token expired') });
    const error = await failure(h.send());
    expect(error).toBeInstanceOf(LicenseServiceError);
    expect((error as LicenseServiceError).errorCode).toBe('7011');
    expect(error.message).toContain('again with a fresh token');
    expect(h.seen.license).toHaveLength(2);
  });

  test("a gateway refusal (8002) rejects at once with the site's own code and message, without a fresh token", async () => {
    const h = setup(
      {},
      {
        license: () =>
          refusal('8002', JSON.stringify({ ERROR: '4031', MESSAGE: 'Subscription ended' })),
      },
    );
    const error = (await failure(h.send())) as LicenseServiceError;
    expect(error).toBeInstanceOf(LicenseServiceError);
    expect(error.code).toBe('LICENSE_SERVICE_ERROR');
    expect(error.errorCode).toBe('8002');
    expect(error.siteErrorCode).toBe('4031');
    expect(error.siteErrorMessage).toBe('Subscription ended');
    expect(error.status).toBe(200);
    expect(error.message).toContain('site code 4031 "Subscription ended"');
    expect(h.seen.license).toHaveLength(1);
    expect(h.seen.token).toHaveLength(1);
  });

  test('HTTP 401 from a proxying site is tried once more with a fresh token', async () => {
    let n = 0;
    const h = setup(
      {},
      {
        license: () =>
          ++n === 1
            ? new HttpResponse('no', cors({ status: 401 }))
            : new HttpResponse(CLEARKEY_LICENSE, cors()),
      },
    );
    await h.send();
    expect(h.seen.license.map((l) => l.header)).toEqual([
      'token-1-Widevine-movie-1',
      'token-2-Widevine-movie-1',
    ]);
  });

  test('HTTP 503 is retried as `retry` says, then fails with LICENSE_REQUEST_FAILED naming the status', async () => {
    const h = setup(
      { retry: { maxAttempts: 3, baseDelayMs: 1 } },
      {
        license: () => new HttpResponse('busy', cors({ status: 503 })),
      },
    );
    const error = await failure(h.send());
    expect(error.code).toBe('LICENSE_REQUEST_FAILED');
    expect(error.message).toContain('answered HTTP 503');
    expect(h.seen.license).toHaveLength(3);
    // One token serves every attempt: it is still fresh.
    expect(h.seen.token).toHaveLength(1);
  });

  test('a refusal in a 4xx answer is the refusal, not a bare status', async () => {
    const h = setup(
      {},
      {
        license: () =>
          HttpResponse.json({ errorCode: '7019', message: 'hash' }, cors({ status: 400 })),
      },
    );
    const error = (await failure(h.send())) as LicenseServiceError;
    expect(error.errorCode).toBe('7019');
    expect(error.status).toBe(400);
    expect(h.seen.license).toHaveLength(1);
  });

  test('a license server that never answers fails at licenseTimeoutMs with LICENSE_REQUEST_FAILED', async () => {
    const h = setup(
      { licenseTimeoutMs: 50 },
      {
        license: () => new Promise<never>(() => undefined),
      },
    );
    const error = await failure(h.send());
    expect(error.code).toBe('LICENSE_REQUEST_FAILED');
    expect(error.message).toContain('within 50 ms');
  });

  test('the end of its load ends a request under way, as moved on (no error for the app)', async () => {
    const h = setup({}, { license: () => new Promise<never>(() => undefined) });
    const pending = h.send();
    await new Promise((r) => setTimeout(r, 20));
    h.session.end('gone');
    const error = await failure(pending);
    expect(error).toMatchObject({ code: 'ABORTED', message: 'gone' });
    expect(h.session.movedOn).toBe(true);
  });

  test('a remote license server without `header` is refused before any token is fetched', async () => {
    const h = setup();
    const error = await failure(
      h.send({ url: 'https://license.example.com/ri/licenseManager.do' }),
    );
    expect(error.code).toBe('INVALID_OPTIONS');
    expect(error.message).toContain(
      'header is required for the license server https://license.example.com',
    );
    expect(h.seen.token).toHaveLength(0);
  });

  test('FairPlay sends the SPC as the form body spc=<base64> and unwraps the CKC', async () => {
    const h = setup(
      {},
      {
        license: () => new HttpResponse('<ckc>AQID</ckc>', cors()),
      },
    );
    const ckc = await h.send({ keySystem: 'com.apple.fps', body: new Uint8Array([4, 5, 6]) });
    expect([...ckc]).toEqual([1, 2, 3]);
    expect(text(h.seen.license[0]!.body)).toBe('spc=BAUG');
    expect(h.seen.license[0]?.contentType).toBe('application/x-www-form-urlencoded');
    expect(h.seen.token).toEqual([{ cid: 'movie-1', drm_type: 'FairPlay' }]);
  });

  test('a wrapped PlayReady key message is sent as its challenge, as the bytes the service takes', async () => {
    const xml =
      '<PlayReadyKeyMessage type="LicenseAcquisition"><LicenseAcquisition Version="1">' +
      '<Challenge encoding="base64encoded">PHNvYXA+</Challenge><HttpHeaders>' +
      '<HttpHeader><name>Content-Type</name><value>text/xml; charset=utf-8</value></HttpHeader>' +
      '</HttpHeaders></LicenseAcquisition></PlayReadyKeyMessage>';
    const utf16 = new Uint8Array(new Uint16Array([...xml].map((c) => c.charCodeAt(0))).buffer);
    const h = setup();
    await h.send({ keySystem: 'com.microsoft.playready.recommendation', body: utf16 });
    expect(text(h.seen.license[0]!.body)).toBe('<soap>');
    // The service takes the challenge as bytes (the wire addendum, 1), not as the CDM's text/xml.
    expect(h.seen.license[0]?.contentType).toBe('application/octet-stream');
    expect(h.seen.token).toEqual([{ cid: 'movie-1', drm_type: 'PlayReady' }]);
  });

  test('a Widevine challenge goes as application/octet-stream; a ClearKey request as it is', async () => {
    const h = setup();
    await h.send({ keySystem: 'com.widevine.alpha' });
    await h.send();
    expect(h.seen.license.map((l) => l.contentType)).toEqual([
      'application/octet-stream',
      expect.not.stringContaining('octet-stream'),
    ]);
  });

  test('the `fetch` option sends the license request (and the token request) instead of the page’s', async () => {
    const calls: string[] = [];
    const h = setup({
      fetch: (input, init) => {
        calls.push(`${init.method} ${input}`);
        return fetch(input, init);
      },
    });
    await h.send();
    expect(calls).toEqual([`POST ${TOKEN_URL}`, `POST ${LICENSE_URL}`]);
    expect(h.seen.license[0]?.header).toBe('token-1-Widevine-movie-1');
  });

  test('answers that are no license and no refusal go to the CDM as they are', async () => {
    const h = setup({}, { license: () => new HttpResponse(new Uint8Array([9, 8, 7]), cors()) });
    expect([...(await h.send())]).toEqual([9, 8, 7]);
  });

  test('a network failure is retried, then fails with LICENSE_REQUEST_FAILED', async () => {
    const h = setup({}, { license: () => HttpResponse.error() });
    const error = await failure(h.send());
    expect(error.code).toBe('LICENSE_REQUEST_FAILED');
    expect(error.message).toContain('No answer from the license server');
    expect(h.seen.license).toHaveLength(2);
  });
});

describe('the site endpoint through `fetch`', () => {
  test('posts {"cid","drm_type"} with the user’s cookies and reads the token as text', async () => {
    const seen: Array<{ credentials: RequestCredentials; body: string }> = [];
    const h = setup({
      fetch: (input, init) => {
        if (input === TOKEN_URL)
          seen.push({ credentials: init.credentials!, body: String(init.body) });
        return fetch(input, init);
      },
    });
    await h.send();
    expect(seen).toEqual([
      { credentials: 'include', body: '{"cid":"movie-1","drm_type":"Widevine"}' },
    ]);
  });

  test('a refusal of the site is a TokenFetchError with its status and reason, as with axios', async () => {
    const h = setup(
      { fetch: (input, init) => fetch(input, init) },
      {
        token: () => HttpResponse.json({ message: 'Sign in to play this title.' }, { status: 401 }),
      },
    );
    const error = await failure(h.send());
    expect(error.code).toBe('TOKEN_FETCH_FAILED');
    expect(error.message).toContain('HTTP 401 (Sign in to play this title.)');
    expect(h.seen.license).toHaveLength(0);
  });

  test('axios and fetch together are refused', () => {
    expect(() =>
      resolveOptions({
        contentId: 'c',
        tokenUrl: TOKEN_URL,
        axios: Object.assign(() => undefined, {}),
        fetch: () => Promise.reject(new Error('x')),
      }),
    ).toThrow('give only one of axios, fetch');
  });
});
