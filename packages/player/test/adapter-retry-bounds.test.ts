// How many requests a refusal costs, counted, on the adapters that send their license requests
// themselves (hls.js, dash.js, video.js): a 401/403 gets one fresh token and one re-send, then a
// typed error (as Shaka does); a JSON refusal `{"errorCode","message"}` is the service's verdict
// whatever its HTTP status, never re-sent as if the server were busy. The license deadline is kept
// short, so a loop would show as the deadline error and a pile of requests, not as a slow test.
import { delay, HttpResponse } from 'msw';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { LicenseAuthError, LicenseServiceError, TokenFetchError } from '../src/index.ts';
import { ADAPTERS, CLEARKEY_LICENSE, drive, type Answers, type Driven } from './adapter-drivers.ts';
import { cors, server } from './http-mocks.ts';

beforeAll(() => server.listen({ onUnhandledFrame: 'error' }));
const driven: Driven[] = [];
afterEach(() => {
  server.resetHandlers();
  for (const d of driven.splice(0)) d.cleanup();
});
afterAll(() => server.close());

const BOUNDED = { licenseTimeoutMs: 1500, retry: { maxAttempts: 3, baseDelayMs: 1 } };

function setup(adapter: (typeof ADAPTERS)[number], answers: Answers) {
  const d = drive(adapter, BOUNDED, answers);
  driven.push(d);
  return d;
}

async function failure(d: Driven): Promise<LicenseAuthError> {
  const result = await d.request();
  if (typeof result === 'string') throw new Error(`expected an error, got a license: ${result}`);
  return result;
}

describe.each(ADAPTERS)('the %s adapter', (adapter) => {
  test.each([401, 403])(
    'HTTP %i from the license server every time: one fresh token, one re-send, then LICENSE_REQUEST_FAILED',
    async (status) => {
      // Each answer takes a timer's turn: a loop would run into the deadline, not starve the timers.
      const d = setup(adapter, {
        license: async () => {
          await delay(1);
          return new HttpResponse('no', cors({ status }));
        },
      });
      const error = await failure(d);
      expect(error.code).toBe('LICENSE_REQUEST_FAILED');
      expect(error.message).toContain(`answered HTTP ${status}`);
      expect(d.seen.license).toHaveLength(2);
      expect(d.seen.token).toHaveLength(2);
    },
  );

  test('refused 7011, then the site refuses the fresh token with 401: TOKEN_FETCH_FAILED, nothing re-sent', async () => {
    const d = setup(adapter, {
      token: () =>
        d.seen.token.length === 1
          ? HttpResponse.text('token-1')
          : HttpResponse.json({ message: 'Sign in again.' }, { status: 401 }),
      license: async () => {
        await delay(1);
        return HttpResponse.json({ errorCode: '7011', message: 'token expired' }, cors());
      },
    });
    const error = (await failure(d)) as TokenFetchError;
    expect(error).toBeInstanceOf(TokenFetchError);
    expect([error.code, error.status]).toEqual(['TOKEN_FETCH_FAILED', 401]);
    expect(d.seen.token).toHaveLength(2);
    expect(d.seen.license).toHaveLength(1);
  });

  test('the site refuses the token with 403: TOKEN_FETCH_FAILED after one token request, no license request', async () => {
    const d = setup(adapter, {
      token: () => HttpResponse.json({ message: 'Not your title.' }, { status: 403 }),
    });
    const error = (await failure(d)) as TokenFetchError;
    expect([error.code, error.status]).toEqual(['TOKEN_FETCH_FAILED', 403]);
    expect(d.seen.token).toHaveLength(1);
    expect(d.seen.license).toHaveLength(0);
  });

  test.each([500, 503])(
    'a JSON refusal with HTTP %i is the refusal it is: LicenseServiceError, sent once (retry.maxAttempts is 3)',
    async (status) => {
      const d = setup(adapter, {
        license: () =>
          HttpResponse.json({ errorCode: '7001', message: 'no packaging' }, cors({ status })),
      });
      const error = (await failure(d)) as LicenseServiceError;
      expect(error).toBeInstanceOf(LicenseServiceError);
      expect([error.errorCode, error.status]).toEqual(['7001', status]);
      expect(d.seen.license).toHaveLength(1);
      expect(d.seen.token).toHaveLength(1);
    },
  );

  test('the same 503 without a refusal body is retried as `retry` says (the busy server the policy is for)', async () => {
    const d = setup(adapter, {
      license: () =>
        d.seen.license.length < 3
          ? new HttpResponse('busy', cors({ status: 503 }))
          : new HttpResponse(CLEARKEY_LICENSE, cors()),
    });
    expect(await d.request()).toBe(CLEARKEY_LICENSE);
    expect(d.seen.license).toHaveLength(3);
    expect(d.seen.token).toHaveLength(1);
  });
});

describe.each(ADAPTERS)('the %s adapter, a token-endpoint outage at a key rotation', (adapter) => {
  // Every license request fetches its token (reused for 1 ms); the load's first token gets no
  // window and two attempts, so only the rotation's window can carry playback through the outage.
  const options = {
    tokenLifetimeMs: 2,
    tokenMinRemainingMs: 1,
    retry: { maxAttempts: 2, baseDelayMs: 1, maxDelayMs: 4, windowMs: 0, renewalWindowMs: 1000 },
  };
  /** The site answers the first token, then `status` `failures` times, then tokens again. */
  function outage(status: number, failures: number) {
    const d: Driven = drive(adapter, options, {
      token: () =>
        d.seen.token.length > 1 && d.seen.token.length <= 1 + failures
          ? HttpResponse.text('bad gateway', { status })
          : HttpResponse.text(`token-${d.seen.token.length}`),
    });
    driven.push(d);
    return d;
  }

  test('502 five times at the second license request of the load: retried, both get the license', async () => {
    const d = outage(502, 5);
    expect(await d.request()).toBe(CLEARKEY_LICENSE);
    expect(await d.request()).toBe(CLEARKEY_LICENSE);
    expect(d.seen.token).toHaveLength(7);
    expect(d.seen.license.map((l) => l.header)).toEqual(['token-1', 'token-7']);
  });

  test('403 at the second license request: the site’s refusal is final at once', async () => {
    const d = outage(403, 5);
    expect(await d.request()).toBe(CLEARKEY_LICENSE);
    const error = (await failure(d)) as TokenFetchError;
    expect([error.code, error.status]).toEqual(['TOKEN_FETCH_FAILED', 403]);
    expect(d.seen.token).toHaveLength(2);
  });

  test('the same outage at the load’s first license request, with no window for it: the error', async () => {
    const d: Driven = drive(adapter, options, {
      token: () => HttpResponse.text('bad gateway', { status: 502 }),
    });
    driven.push(d);
    const error = (await failure(d)) as TokenFetchError;
    expect([error.code, error.status]).toEqual(['TOKEN_FETCH_FAILED', 502]);
    expect(d.seen.token).toHaveLength(2);
  });
});
