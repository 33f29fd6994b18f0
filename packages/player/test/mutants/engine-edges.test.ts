import { describe, expect, it } from 'vitest';
import { TokenFetchError } from '../../src/engine/errors.ts';
import { DEFAULT_RETRY, retryWait } from '../../src/engine/retry.ts';
import { builderErrorOf, readJsonObject, refusalOf } from '../../src/engine/service-error.ts';
import { createSiteFetcher, withTokenDeadline } from '../../src/engine/site-client.ts';

// The engine's pure rules, one by one: which answers are retried and how long it waits, what is
// read as a refusal or a token builder's error, and what the site's token answer must be.

describe('retryWait', () => {
  it('retries no answer and the statuses that say "try again", after the base delay', () => {
    for (const status of [undefined, 408, 429, 500, 502, 503, 504]) {
      expect(retryWait(DEFAULT_RETRY, 1, status)).toBe(250);
    }
  });

  it('does not retry an answer that is final (the site or the service said no)', () => {
    for (const status of [400, 401, 403, 404, 409, 413, 415, 501]) {
      expect(retryWait(DEFAULT_RETRY, 1, status)).toBeUndefined();
    }
  });

  it('doubles the wait, never past maxDelayMs', () => {
    const many = { ...DEFAULT_RETRY, maxAttempts: 10 };
    expect([1, 2, 3, 4, 5, 6, 9].map((failures) => retryWait(many, failures))).toEqual([
      250, 500, 1000, 2000, 2000, 2000, 2000,
    ]);
  });
});

describe('reading an answer as JSON', () => {
  it('takes only a JSON object: not an array, a number or a string', () => {
    expect(readJsonObject('{"errorCode":"7011"}')).toEqual({ errorCode: '7011' });
    for (const text of ['[{"errorCode":"7011"}]', '7011', '"7011"', 'null']) {
      expect(readJsonObject(text)).toBeNull();
    }
  });

  it('reads code 0000 as success, never as a refusal', () => {
    expect(refusalOf({ errorCode: '0000', message: 'ok' })).toBeNull();
    expect(refusalOf({ error_code: '0000', message: 'ok' })).toBeNull();
    expect(refusalOf({ errorCode: '7011', message: 'expired' })).toMatchObject({
      errorCode: '7011',
    });
  });

  it("tells a token builder's error from a refusal by its shape", () => {
    expect(builderErrorOf({ error_code: '1001', error_message: 'bad site id' })).toEqual({
      code: '1001',
      message: 'bad site id',
    });
    expect(builderErrorOf({ error_code: '1001', error_message: 'x', message: 'm' })).toBeNull();
    expect(builderErrorOf({ errorCode: '7011', error_message: 'x' })).toBeNull();
  });
});

describe("the site's token answer", () => {
  const signal = new AbortController().signal;
  const once = { ...DEFAULT_RETRY, maxAttempts: 1 };
  const answering = (status: number, text: string) => {
    const calls: string[] = [];
    const fetcher = createSiteFetcher(
      async (url) => {
        calls.push(url);
        return { status, text };
      },
      'https://site.test/drm/token',
      'token',
      once,
    );
    return { calls, get: () => fetcher({ cid: 'movie', drmType: 'Widevine', signal }) };
  };

  it('is refused when the status is not 2xx, a redirect included', async () => {
    for (const status of [301, 302, 399]) {
      const error = await answering(status, 'VG9rZW4=')
        .get()
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(TokenFetchError);
      expect(error).toMatchObject({ code: 'TOKEN_FETCH_FAILED', status });
    }
  });

  it('is refused when it is an HTML page answered with 200', async () => {
    const error = await answering(200, '<!doctype html><title>Sign in</title>')
      .get()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TokenFetchError);
    expect((error as Error).message).toMatch(/an HTML page, not a token/);
  });

  it('is the text without the white space around it, from any source', async () => {
    const source = withTokenDeadline(async () => '  VG9rZW4=\n', 'getToken', 'token', 60_000);
    expect(await source('movie', 'Widevine', signal)).toBe('VG9rZW4=');
  });
});
