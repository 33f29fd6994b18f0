// WHEN the retry policy and the deadlines fire, on vitest's fake clock: the exact millisecond of
// each attempt and of each deadline error. Fake time is deterministic; a wait doubled, a deadline
// off by one step, or a backoff that skips its factor fails here.
import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';
import { createEngine } from '../src/engine/engine.ts';
import { LicenseAuthError, TokenFetchError } from '../src/engine/errors.ts';
import { createLicenseSender } from '../src/engine/license-request.ts';
import { resolveOptions, type EngineOptions } from '../src/engine/options.ts';
import { DEFAULT_RETRY, retryWait, withDeadline } from '../src/engine/retry.ts';
import { createSiteFetcher, withTokenDeadline, type SitePost } from '../src/engine/site-client.ts';

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

/** The fake clock's milliseconds since the test began. */
const clock = () => {
  const start = Date.now();
  return () => Date.now() - start;
};

/** Settles `promise` into a value the test can look at without awaiting it. */
function watch<T>(promise: Promise<T>) {
  const state: { settled: boolean; value?: T; error?: unknown } = { settled: false };
  promise.then(
    (value) => Object.assign(state, { settled: true, value }),
    (error: unknown) => Object.assign(state, { settled: true, error }),
  );
  return state;
}

describe('retryWait: the backoff of the defaults and of a given policy', () => {
  test('the defaults wait 250 ms after the first failure and allow no third attempt', () => {
    expect(retryWait(DEFAULT_RETRY, 1)).toBe(250);
    expect(retryWait(DEFAULT_RETRY, 2)).toBeUndefined();
  });

  test('each wait is the previous one times the factor, up to maxDelayMs', () => {
    const policy = { ...DEFAULT_RETRY, maxAttempts: 7, baseDelayMs: 100, backoffFactor: 3 };
    const waits = [1, 2, 3, 4, 5, 6].map((failures) => retryWait(policy, failures));
    expect(waits).toEqual([100, 300, 900, 2000, 2000, 2000]);
  });

  test('a status outside retryOnStatus gets no wait; no answer at all does', () => {
    const policy = { ...DEFAULT_RETRY, maxAttempts: 3 };
    expect(retryWait(policy, 1, 404)).toBeUndefined();
    expect(retryWait(policy, 1, 503)).toBe(250);
    expect(retryWait(policy, 1)).toBe(250);
  });
});

describe('withDeadline', () => {
  test('rejects with the timeout error at exactly `ms`, and aborts the work’s signal then', async () => {
    const since = clock();
    let signal: AbortSignal | undefined;
    const timeout = new Error('deadline');
    const run = watch(
      withDeadline(
        1000,
        () => timeout,
        new AbortController().signal,
        (s) => {
          signal = s;
          return new Promise<never>(() => undefined);
        },
      ),
    );
    await vi.advanceTimersByTimeAsync(999);
    expect(run.settled).toBe(false);
    expect(signal?.aborted).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(run).toMatchObject({ settled: true, error: timeout });
    expect(signal?.aborted).toBe(true);
    expect(since()).toBe(1000);
  });

  test('work that ends first clears the timer: nothing fires later', async () => {
    const fired = vi.fn(() => new Error('late'));
    const value = await withDeadline(1000, fired, new AbortController().signal, async () => 'ok');
    expect(value).toBe('ok');
    await vi.advanceTimersByTimeAsync(5000);
    expect(fired).not.toHaveBeenCalled();
    expect(vi.getTimerCount()).toBe(0);
  });
});

describe("the site's token endpoint: attempts and the token deadline", () => {
  /** A site that is down: every POST fails without an answer, at the time recorded. */
  function downSite() {
    const since = clock();
    const at: number[] = [];
    const post: SitePost = () => {
      at.push(since());
      return Promise.reject(new TypeError('Failed to fetch'));
    };
    return { at, post };
  }

  test('maxAttempts 4, 250 ms doubling: attempts at 0, 250, 750 and 1750 ms, the error right after the last', async () => {
    const site = downSite();
    const retry = { ...DEFAULT_RETRY, maxAttempts: 4 };
    const fetcher = createSiteFetcher(site.post, '/token', 'token', retry);
    const signal = new AbortController().signal;
    const run = watch(fetcher({ cid: 'movie-1', drmType: 'Widevine', signal }));
    const steps: Array<[number, number]> = [];
    for (const ms of [0, 249, 1, 499, 1, 999, 1]) {
      await vi.advanceTimersByTimeAsync(ms);
      steps.push([ms, site.at.length]);
    }
    expect(site.at).toEqual([0, 250, 750, 1750]);
    expect(steps.map(([, calls]) => calls)).toEqual([1, 1, 2, 2, 3, 3, 4]);
    expect(run.settled).toBe(true);
    expect(run.error).toBeInstanceOf(TokenFetchError);
  });

  test('maxDelayMs caps the wait: 400 ms base, factor 10, cap 1000: attempts at 0, 400, 1400 ms', async () => {
    const site = downSite();
    const retry = {
      ...DEFAULT_RETRY,
      maxAttempts: 3,
      baseDelayMs: 400,
      backoffFactor: 10,
      maxDelayMs: 1000,
    };
    const run = watch(
      createSiteFetcher(
        site.post,
        '/token',
        'token',
        retry,
      )({
        cid: 'c',
        drmType: 'Widevine',
        signal: new AbortController().signal,
      }),
    );
    await vi.advanceTimersByTimeAsync(1399);
    expect(site.at).toEqual([0, 400]);
    await vi.advanceTimersByTimeAsync(1);
    expect(site.at).toEqual([0, 400, 1400]);
    expect(run.error).toBeInstanceOf(TokenFetchError);
  });

  test('tokenTimeoutMs: TOKEN_TIMEOUT at exactly that ms, retries included, and no attempt after it', async () => {
    const site = downSite();
    // Waits of 250, 500, 1000 ms: the fourth attempt (1750 ms) would come after the deadline.
    const fetcher = createSiteFetcher(site.post, '/token', 'token', {
      ...DEFAULT_RETRY,
      maxAttempts: 10,
    });
    const fetchToken = withTokenDeadline(fetcher, '/token', 'token', 1500);
    const run = watch(fetchToken('movie-1', 'Widevine', new AbortController().signal));
    await vi.advanceTimersByTimeAsync(1499);
    expect(run.settled).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect((run.error as TokenFetchError | undefined)?.code).toBe('TOKEN_TIMEOUT');
    expect((run.error as Error).message).toContain('within 1500 ms');
    await vi.advanceTimersByTimeAsync(10_000);
    expect(site.at).toEqual([0, 250, 750]);
  });
});

describe('a license request an adapter sends itself: attempts and the license deadline', () => {
  function sender(options: Partial<EngineOptions>, answer: () => Promise<Response>) {
    const since = clock();
    const at: number[] = [];
    const engine = createEngine(
      resolveOptions({
        contentId: 'movie-1',
        getToken: async () => 'token-1',
        fetch: (() => {
          at.push(since());
          return answer();
        }) as EngineOptions['fetch'],
        ...options,
      }),
    );
    const send = () =>
      createLicenseSender(engine).send({
        keySystem: 'org.w3.clearkey',
        drmType: 'Widevine',
        cid: 'movie-1',
        url: 'http://localhost:3000/license',
        body: new Uint8Array([1]),
        licenseRequestType: 'license-request',
        session: engine.loads.current(),
      });
    return { at, send, since };
  }

  test('HTTP 503, maxAttempts 3, 100 ms tripling: sent at 0, 100 and 400 ms, failed at 400 ms', async () => {
    const h = sender(
      { retry: { maxAttempts: 3, baseDelayMs: 100, backoffFactor: 3 } },
      async () => new Response('busy', { status: 503 }),
    );
    const run = watch(h.send());
    await vi.advanceTimersByTimeAsync(99);
    expect(h.at).toEqual([0]);
    await vi.advanceTimersByTimeAsync(1);
    expect(h.at).toEqual([0, 100]);
    await vi.advanceTimersByTimeAsync(299);
    expect(h.at).toEqual([0, 100]);
    expect(run.settled).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(h.at).toEqual([0, 100, 400]);
    expect(run.settled).toBe(true);
    expect((run.error as LicenseAuthError).message).toContain('answered HTTP 503');
  });

  test('licenseTimeoutMs: a server that never answers fails at exactly that ms, with no re-send', async () => {
    const h = sender({ licenseTimeoutMs: 3000 }, () => new Promise<never>(() => undefined));
    const run = watch(h.send());
    await vi.advanceTimersByTimeAsync(2999);
    expect(run.settled).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(run.settled).toBe(true);
    expect((run.error as LicenseAuthError).code).toBe('LICENSE_REQUEST_FAILED');
    expect((run.error as Error).message).toContain('within 3000 ms');
    expect(h.at).toEqual([0]);
  });

  test('the license deadline cuts a backoff wait short: nothing is sent after it', async () => {
    // Waits of 1000 and 2000 ms; the deadline at 2500 ms falls inside the second wait.
    const h = sender(
      { licenseTimeoutMs: 2500, retry: { maxAttempts: 5, baseDelayMs: 1000, maxDelayMs: 8000 } },
      async () => new Response('busy', { status: 503 }),
    );
    const run = watch(h.send());
    await vi.advanceTimersByTimeAsync(2499);
    expect(run.settled).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect((run.error as Error).message).toContain('within 2500 ms');
    await vi.advanceTimersByTimeAsync(10_000);
    expect(h.at).toEqual([0, 1000]);
  });
});
