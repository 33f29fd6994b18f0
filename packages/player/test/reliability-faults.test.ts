// Faults on the player's side of the flow: the site's token endpoint down, hanging or answering an
// HTML page; the license service answering 500 or garbage; the network dropping between the token
// and the license request. Each ends in its own error, after a bounded number of attempts.
import { describe, expect, test } from 'vitest';
import { HttpResponse } from 'msw';
import { LicenseServiceError, TokenFetchError } from '../src/index.ts';
import { cors, rejection, requestLicense, shaka, text, useLicenseAuthHarness } from './harness.ts';

const h = useLicenseAuthHarness();
const { setup, record, filterError } = h;
const { Code } = shaka.util.Error;

describe('the token endpoint fails', () => {
  test('down (the connection fails), no retry window: TOKEN_FETCH_FAILED after retry.maxAttempts tries, no license request', async () => {
    const { player } = setup(
      { retry: { baseDelayMs: 1, maxAttempts: 3, windowMs: 0 } },
      { token: () => HttpResponse.error() },
    );
    const cause = filterError(await rejection(requestLicense(player))) as TokenFetchError;
    expect(cause).toBeInstanceOf(TokenFetchError);
    expect([cause.code, cause.status]).toEqual(['TOKEN_FETCH_FAILED', undefined]);
    expect(cause.message).toContain('check the URL, that the site is up');
    expect(h.seen.token).toHaveLength(3);
    expect(h.seen.license).toEqual([]);
  });

  test('answers an HTML page with 200: TOKEN_FETCH_FAILED naming it, not sent on as a token', async () => {
    const page = '<!doctype html><html><body>Please sign in</body></html>';
    const { player } = setup({}, { token: () => HttpResponse.html(page) });
    const cause = filterError(await rejection(requestLicense(player))) as TokenFetchError;
    expect(cause).toBeInstanceOf(TokenFetchError);
    expect([cause.status, cause.reason]).toEqual([200, 'an HTML page, not a token']);
    expect(h.seen.license).toEqual([]);
    expect(h.seen.token).toHaveLength(1); // a page will not turn into a token on retry
  });

  test('answers an HTML page labelled text/plain: caught by its first character', async () => {
    const { player } = setup({}, { token: () => HttpResponse.text('<html>oops</html>') });
    const cause = filterError(await rejection(requestLicense(player))) as TokenFetchError;
    expect(cause.reason).toBe('an HTML page, not a token');
  });

  test('never answers: TOKEN_TIMEOUT at tokenTimeoutMs, retries included', async () => {
    const { player } = setup(
      { tokenTimeoutMs: 200 },
      { token: () => new Promise<never>(() => undefined) },
    );
    const cause = filterError(await rejection(requestLicense(player))) as TokenFetchError;
    expect(cause.code).toBe('TOKEN_TIMEOUT');
    expect(h.seen.license).toEqual([]);
  }, 5_000);
});

describe('the token endpoint fails at a key rotation or a renewal (Shaka)', () => {
  // Every license request fetches its token (reused for 1 ms); the load's first token gets no
  // window and two attempts, so only the window of the later requests carries playback through.
  const options = {
    tokenLifetimeMs: 2,
    tokenMinRemainingMs: 1,
    retry: { maxAttempts: 2, baseDelayMs: 1, maxDelayMs: 4, windowMs: 0, renewalWindowMs: 1000 },
  };
  const outage = (status: number) => () =>
    h.seen.token.length > 1 && h.seen.token.length <= 6
      ? HttpResponse.text('bad gateway', { status })
      : HttpResponse.text(`token-${h.seen.token.length}`);

  test.each([
    ['a key rotation (a second license request of the load)', 'license-request'],
    ['a renewal', 'license-renewal'],
  ])('502 five times at %s: retried, the license arrives', async (_, licenseRequestType) => {
    const { player } = setup(options, { token: outage(502) });
    await requestLicense(player);
    await requestLicense(player, { licenseRequestType, sessionId: 'session-2' });
    expect(h.seen.token).toHaveLength(7);
    expect(h.seen.license.map((l) => l.header)).toEqual(['token-1', 'token-7']);
  });

  test('401 at a renewal: the site’s answer is final at once', async () => {
    const { player } = setup(options, { token: outage(401) });
    await requestLicense(player);
    const second = requestLicense(player, { licenseRequestType: 'license-renewal' });
    const cause = filterError(await rejection(second)) as TokenFetchError;
    expect([cause.code, cause.status]).toEqual(['TOKEN_FETCH_FAILED', 401]);
    expect(h.seen.token).toHaveLength(2);
  });
});

describe('the license service fails', () => {
  test('HTTP 500 with its JSON error body: LicenseServiceError, sent once (a refusal is not re-sent)', async () => {
    const { player } = setup(
      {},
      {
        license: () =>
          HttpResponse.json(
            { error_code: 'INTERNAL_ERROR', message: 'The emulator failed unexpectedly.' },
            cors({ status: 500 }),
          ),
      },
    );
    const cause = filterError(await rejection(requestLicense(player, { maxAttempts: 3 })));
    expect(cause).toBeInstanceOf(LicenseServiceError);
    expect([
      (cause as LicenseServiceError).errorCode,
      (cause as LicenseServiceError).status,
    ]).toEqual(['INTERNAL_ERROR', 500]);
    // The wire addendum: a JSON refusal is the service's verdict, whatever the HTTP status.
    expect(h.seen.license).toHaveLength(1);
    expect(h.seen.token).toHaveLength(1); // the token is reused, not fetched per attempt
  });

  test("the service's own refusal with HTTP 503: LicenseServiceError, sent once although 503 is retryable", async () => {
    const { player } = setup(
      {},
      {
        license: () =>
          HttpResponse.json({ errorCode: 7001, message: 'no packaging' }, cors({ status: 503 })),
      },
    );
    const cause = filterError(await rejection(requestLicense(player, { maxAttempts: 3 })));
    expect(cause).toBeInstanceOf(LicenseServiceError);
    expect([
      (cause as LicenseServiceError).errorCode,
      (cause as LicenseServiceError).status,
    ]).toEqual(['7001', 503]);
    expect(h.seen.license).toHaveLength(1);
  });

  test('HTTP 500 with a proxy page: Shaka BAD_HTTP_STATUS after exactly maxAttempts', async () => {
    const { player, handle } = setup(
      {},
      { license: () => new HttpResponse('<h1>502 Bad Gateway</h1>', cors({ status: 500 })) },
    );
    const answered = record(handle, 'licenseAnswered');
    const error = await rejection(requestLicense(player, { maxAttempts: 3 }));
    expect(error.code).toBe(Code.BAD_HTTP_STATUS);
    expect(error.data[1]).toBe(500);
    expect(h.seen.license).toHaveLength(3);
    // One event per request sent, though Shaka runs the filters once more after the last attempt.
    expect(answered.map((a) => a.status)).toEqual([500, 500, 500]);
    expect(answered.every((a) => a.error === undefined)).toBe(true);
  });

  test('garbage with HTTP 200: handed to the CDM untouched, not mistaken for a service error', async () => {
    // Only the CDM can tell a license from garbage; it rejects it (Shaka LICENSE_RESPONSE_REJECTED).
    const garbage = '\u0000\u0001not a license{';
    const { player, handle } = setup({}, { license: () => new HttpResponse(garbage, cors()) });
    const answered = record(handle, 'licenseAnswered');
    const response = await requestLicense(player);
    expect(text(response.data)).toBe(garbage);
    expect(answered[0]?.error).toBeUndefined();
    expect(h.seen.license).toHaveLength(1);
  });
});

describe('the network drops between the token and the license request', () => {
  test('HTTP_ERROR after exactly maxAttempts; the token is fetched once and resent each time', async () => {
    const { player } = setup({}, { license: () => HttpResponse.error() });
    const error = await rejection(requestLicense(player, { maxAttempts: 3 }));
    expect(error.code).toBe(Code.HTTP_ERROR);
    expect(h.seen.token).toHaveLength(1);
    // msw answers the preflight, then fails the request itself: every attempt reached it.
    expect(h.seen.license).toHaveLength(3);
    expect(new Set(h.seen.license.map((l) => l.header))).toEqual(
      new Set(['token-1-Widevine-movie-1']),
    );
  });

  test('the network comes back: the next attempt succeeds with the same token', async () => {
    const { player } = setup(
      {},
      {
        license: () =>
          h.seen.license.length === 1
            ? HttpResponse.error()
            : new HttpResponse(new Uint8Array([7]), cors()),
      },
    );
    const response = await requestLicense(player, { maxAttempts: 3 });
    expect(new Uint8Array(response.data as ArrayBuffer)).toEqual(new Uint8Array([7]));
    expect(h.seen.token).toHaveLength(1);
    expect(h.seen.license).toHaveLength(2);
  });
});
