import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  createCustomDataHandler,
  createTokenHandler,
  SiteKitError,
  type SiteEndpointEvent,
  type TokenHandlerOptions,
} from '../../src/index.ts';
import { TUTO } from '../support/site.ts';

// What the token and custom-data endpoints do with what a site's own code throws or never answers,
// and with requests that a player cannot have sent (cross-site request forgery).

const SITE_URL = 'http://site.test/token';
const PLAYER_ORIGIN = 'https://player.test';
const BODY = JSON.stringify({ cid: 'movie-1', drm_type: 'Widevine' });
const JSON_TYPE = { 'content-type': 'application/json' };

type Authorize = TokenHandlerOptions['authorize'];
const allow: Authorize = () => ({ allow: true, userId: 'u1' });

function tokenEndpoint(authorize: Authorize, more: Partial<TokenHandlerOptions> = {}) {
  const events: SiteEndpointEvent[] = [];
  const errors: { error: unknown; asked: unknown }[] = [];
  const calls: Request[] = [];
  const handler = createTokenHandler({
    ...TUTO,
    authorize: (request, asked, context) => {
      calls.push(request);
      return authorize(request, asked, context);
    },
    onEvent: (e) => events.push(e),
    onError: (error, asked) => errors.push({ error, asked }),
    ...more,
  });
  const post = (headers: Record<string, string>, body: string = BODY) =>
    handler(new Request(SITE_URL, { method: 'POST', body, headers }));
  return { handler, post, events, errors, calls };
}

describe("what the site's authorize throws", () => {
  const secretError = () =>
    new TypeError(`lookup failed for ${TUTO.siteKey} with ${TUTO.accessKey}`);

  it('the token endpoint puts only its class in the event; the error itself goes to onError', async () => {
    const thrown = secretError();
    const { post, events, errors } = tokenEndpoint(() => {
      throw thrown;
    });
    const response = await post(JSON_TYPE);
    expect([response.status, await response.text()]).toEqual([
      500,
      'The site could not decide; try again later.',
    ]);
    const text = JSON.stringify(events);
    expect(text).not.toContain(TUTO.siteKey);
    expect(text).not.toContain(TUTO.accessKey);
    expect(text).not.toContain('lookup failed');
    expect(events.at(-1)).toEqual({
      type: 'error',
      status: 500,
      reason: 'authorize threw an error of class TypeError; the error itself went to onError',
    });
    expect(errors).toEqual([{ error: thrown, asked: { cid: 'movie-1', drmType: 'Widevine' } }]);
  });

  it('the custom-data endpoint does the same, also for a rejected promise', async () => {
    const thrown = secretError();
    const events: SiteEndpointEvent[] = [];
    const errors: unknown[] = [];
    const handler = createCustomDataHandler({
      siteId: TUTO.siteId,
      siteKey: TUTO.siteKey,
      authorize: () => Promise.reject(thrown),
      onEvent: (e) => events.push(e),
      onError: (error) => errors.push(error),
    });
    const response = await handler(
      new Request('http://site.test/cd', { method: 'POST', body: BODY, headers: JSON_TYPE }),
    );
    expect(response.status).toBe(500);
    expect(JSON.stringify(events)).not.toContain(TUTO.siteKey);
    expect(events.at(-1)).toMatchObject({ reason: expect.stringContaining('class TypeError') });
    expect(errors).toEqual([thrown]);
  });

  it('a throwing onError changes nothing in the answer', async () => {
    const { handler } = tokenEndpoint(
      () => {
        throw new Error('x');
      },
      {
        onError: () => {
          throw new Error('reporter down');
        },
      },
    );
    const response = await handler(
      new Request(SITE_URL, { method: 'POST', body: BODY, headers: JSON_TYPE }),
    );
    expect(response.status).toBe(500);
  });
});

describe('the deadline of authorize', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('by default a hanging authorize is cut at 5 s: 503 with Retry-After, its signal aborted', async () => {
    vi.useFakeTimers();
    let signal: AbortSignal | undefined;
    const { post, events } = tokenEndpoint((_request, _asked, context) => {
      signal = context.signal;
      return new Promise(() => {});
    });
    let settled = false;
    const answered = post(JSON_TYPE).finally(() => (settled = true));
    await vi.advanceTimersByTimeAsync(4_999);
    expect(settled).toBe(false);
    expect(signal?.aborted).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    const response = await answered;
    expect([response.status, await response.text()]).toEqual([
      503,
      'The site could not decide in time; try again later.',
    ]);
    expect(response.headers.get('retry-after')).toBe('1');
    expect(events.at(-1)).toEqual({
      type: 'error',
      status: 503,
      reason: 'authorize did not decide within 5000 ms',
    });
    expect(signal?.aborted).toBe(true);
    expect((signal?.reason as DOMException).name).toBe('TimeoutError');
    // Nothing is left waiting: no timer of the handler outlives the answer.
    expect(vi.getTimerCount()).toBe(0);
  });

  it('authorizeTimeoutMs sets it; a decision in time is answered and leaves no timer', async () => {
    vi.useFakeTimers();
    const slow = tokenEndpoint(() => new Promise(() => {}), { authorizeTimeoutMs: 50 });
    const answered = slow.post(JSON_TYPE);
    await vi.advanceTimersByTimeAsync(50);
    expect((await answered).status).toBe(503);

    const quick = tokenEndpoint(allow, { authorizeTimeoutMs: 50 });
    expect((await quick.post(JSON_TYPE)).status).toBe(200);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('a late answer or error of a timed-out authorize is dropped quietly', async () => {
    vi.useFakeTimers();
    const unhandled = vi.fn();
    process.on('unhandledRejection', unhandled);
    try {
      const { post, errors } = tokenEndpoint(
        () => new Promise((_, reject) => setTimeout(() => reject(new Error('late')), 100)),
        { authorizeTimeoutMs: 10 },
      );
      const answered = post(JSON_TYPE);
      await vi.advanceTimersByTimeAsync(200);
      expect((await answered).status).toBe(503);
      expect(errors).toEqual([]);
      vi.useRealTimers();
      await new Promise((resolve) => setImmediate(resolve));
      expect(unhandled).not.toHaveBeenCalled();
    } finally {
      process.off('unhandledRejection', unhandled);
    }
  });

  it.each([0, -1, 1.5, Number.NaN, '100', 2 ** 31])(
    'authorizeTimeoutMs %s is refused when the handler is made',
    (value) => {
      const make = () =>
        createTokenHandler({ ...TUTO, authorize: allow, authorizeTimeoutMs: value as number });
      expect(make).toThrow(SiteKitError);
      expect(make).toThrow(
        'authorizeTimeoutMs: must be a whole number of milliseconds from 1 to 2147483647.',
      );
    },
  );
});

describe('requests a player cannot have sent (CSRF)', () => {
  it.each([
    ['text/plain', { 'content-type': 'text/plain' }],
    ['text/plain;charset=UTF-8', { 'content-type': 'text/plain;charset=UTF-8' }],
    ['a form', { 'content-type': 'application/x-www-form-urlencoded' }],
    ['multipart', { 'content-type': 'multipart/form-data; boundary=x' }],
    ['no content type', {}],
  ])('%s is refused with 415 before authorize runs', async (_name, headers) => {
    const { post, calls, events } = tokenEndpoint(allow);
    const response = await post(headers);
    expect([response.status, await response.text()]).toEqual([
      415,
      'Unsupported media type: send the body as application/json.',
    ]);
    expect(calls).toEqual([]);
    expect(events).toEqual([
      { type: 'rejected', status: 415, reason: expect.stringContaining('is not application/json') },
    ]);
  });

  it.each([
    ['cross-site', 'https://evil.test'],
    ['same-site', 'https://other.site.test'],
  ])(
    'Sec-Fetch-Site %s from an origin CORS does not allow is refused with 403',
    async (site, origin) => {
      const { post, calls } = tokenEndpoint(allow);
      const response = await post({ ...JSON_TYPE, 'sec-fetch-site': site, origin });
      expect(response.status).toBe(403);
      expect(calls).toEqual([]);
    },
  );

  it('an Origin that is not the host asked is refused when the browser sends no Sec-Fetch-Site', async () => {
    const { post, calls } = tokenEndpoint(allow);
    expect((await post({ ...JSON_TYPE, origin: 'https://evil.test' })).status).toBe(403);
    expect((await post({ ...JSON_TYPE, origin: 'null' })).status).toBe(403);
    expect(calls).toEqual([]);
  });

  it.each([
    [
      'same-origin, as the browser says',
      { 'sec-fetch-site': 'same-origin', origin: 'http://site.test' },
    ],
    ['typed in (none)', { 'sec-fetch-site': 'none' }],
    ['same origin, by Origin and Host', { origin: 'http://site.test' }],
    ['not a browser (no Origin, no Sec-Fetch-Site)', {}],
    ['with a charset', { 'content-type': 'application/json; charset=utf-8' }],
  ])('%s is served', async (_name, headers) => {
    const { post } = tokenEndpoint(allow);
    expect((await post({ ...JSON_TYPE, ...headers })).status).toBe(200);
  });

  it('a cross-site request from an origin in cors.origins is served', async () => {
    const { post } = tokenEndpoint(allow, { cors: { origins: [PLAYER_ORIGIN] } });
    const response = await post({
      ...JSON_TYPE,
      'sec-fetch-site': 'cross-site',
      origin: PLAYER_ORIGIN,
    });
    expect(response.status).toBe(200);
  });

  it('is configurable: other content types, the origin check off, or the whole guard off', async () => {
    const types = tokenEndpoint(allow, {
      requestGuard: { contentTypes: ['application/x-player'] },
    });
    expect((await types.post({ 'content-type': 'application/x-player' })).status).toBe(200);
    expect((await types.post(JSON_TYPE)).status).toBe(415);

    const cross = { ...JSON_TYPE, 'sec-fetch-site': 'cross-site', origin: 'https://evil.test' };
    const noOrigin = tokenEndpoint(allow, { requestGuard: { checkOrigin: false } });
    expect((await noOrigin.post(cross)).status).toBe(200);

    const off = tokenEndpoint(allow, { requestGuard: false });
    expect((await off.post({ 'content-type': 'text/plain' })).status).toBe(200);
  });

  it('the custom-data endpoint is guarded the same way', async () => {
    const handler = createCustomDataHandler({
      siteId: TUTO.siteId,
      siteKey: TUTO.siteKey,
      authorize: () => ({ allow: true, userId: 'u' }),
    });
    const send = (headers: Record<string, string>) =>
      handler(new Request('http://site.test/cd', { method: 'POST', body: BODY, headers }));
    expect((await send({ 'content-type': 'text/plain' })).status).toBe(415);
    expect((await send({ ...JSON_TYPE, 'sec-fetch-site': 'cross-site' })).status).toBe(403);
    expect((await send(JSON_TYPE)).status).toBe(200);
  });

  it('bad guard options are refused when the handler is made', () => {
    const make = (requestGuard: unknown) => () =>
      createTokenHandler({
        ...TUTO,
        authorize: allow,
        requestGuard: requestGuard as TokenHandlerOptions['requestGuard'],
      });
    expect(make({ contentTypes: [] })).toThrow(
      'requestGuard.contentTypes: must name at least one media type (or set requestGuard: false)',
    );
    expect(make({ contentTypes: ['json'] })).toThrow(SiteKitError);
    expect(make({ checkOrigin: 'yes' })).toThrow(SiteKitError);
  });
});

describe('CORS credentials', () => {
  const preflight = (handler: (r: Request) => Promise<Response>) =>
    handler(
      new Request(SITE_URL, {
        method: 'OPTIONS',
        headers: { origin: PLAYER_ORIGIN, 'access-control-request-method': 'POST' },
      }),
    );

  it('are never allowed unless the site opts in, on answers and preflights alike', async () => {
    const { handler, post } = tokenEndpoint(allow, { cors: { origins: [PLAYER_ORIGIN] } });
    const answer = await post({ ...JSON_TYPE, origin: PLAYER_ORIGIN });
    expect(answer.headers.get('access-control-allow-origin')).toBe(PLAYER_ORIGIN);
    expect(answer.headers.get('access-control-allow-credentials')).toBeNull();
    const pre = await preflight(handler);
    expect(pre.status).toBe(204);
    expect(pre.headers.get('access-control-allow-credentials')).toBeNull();
  });

  it('are allowed with credentials: true', async () => {
    const { handler, post } = tokenEndpoint(allow, {
      cors: { origins: [PLAYER_ORIGIN], credentials: true },
    });
    const answer = await post({ ...JSON_TYPE, origin: PLAYER_ORIGIN });
    expect(answer.headers.get('access-control-allow-credentials')).toBe('true');
    expect((await preflight(handler)).headers.get('access-control-allow-credentials')).toBe('true');
  });
});
