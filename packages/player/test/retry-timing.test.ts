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
  test('the defaults wait 250 ms after the first failure and, without a window, allow no third attempt', () => {
    expect(retryWait(DEFAULT_RETRY, 1)).toBe(250);
    expect(retryWait(DEFAULT_RETRY, 2)).toBeUndefined();
  });

  test('the default windows: a load’s first token within 3 s of waits, a renewal’s within 45 s', () => {
    expect([DEFAULT_RETRY.windowMs, DEFAULT_RETRY.renewalWindowMs]).toEqual([3000, 45_000]);
    const waits = (windowMs: number) => {
      const out: number[] = [];
      for (let failures = 1, waited = 0; ; failures++) {
        const wait = retryWait(DEFAULT_RETRY, failures, 503, waited, windowMs);
        if (wait === undefined) return out;
        out.push(wait);
        waited += wait;
      }
    };
    // Attempts at 0, 0.25, 0.75 and 1.75 s: a 1-second blip at start is over by the last.
    expect(waits(DEFAULT_RETRY.windowMs)).toEqual([250, 500, 1000]);
    // Then every 2 s (the cap) until 45 s of waits: 25 attempts over 43.75 s.
    const renewal = waits(DEFAULT_RETRY.renewalWindowMs);
    expect(renewal.slice(0, 5)).toEqual([250, 500, 1000, 2000, 2000]);
    expect([renewal.length, renewal.reduce((a, b) => a + b)]).toEqual([24, 43_750]);
  });

  test('a window never retries what the policy does not: a 401, a 403, a 404 are final', () => {
    for (const status of [401, 403, 404]) {
      expect(retryWait(DEFAULT_RETRY, 1, status, 0, 45_000)).toBeUndefined();
    }
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

describe('a token-endpoint outage at the start of a load and at a key rotation', () => {
  const LICENSE = new Uint8Array([9, 9]);
  /** A site whose token endpoint answers `status` while `down()`; the license server always answers. */
  function outage(status: number) {
    const since = clock();
    const tokenAt: number[] = [];
    let downFrom = 0;
    let downUntil = 0;
    const engine = createEngine(
      resolveOptions({
        contentId: 'movie-1',
        tokenUrl: 'http://localhost:3000/token',
        now: () => Date.now(),
        fetch: async (url: string) => {
          if (!url.endsWith('/token')) return new Response(LICENSE);
          const t = since();
          tokenAt.push(t);
          return t >= downFrom && t < downUntil
            ? new Response('bad gateway', { status })
            : new Response(`token-${tokenAt.length}`);
        },
      }),
    );
    const session = engine.loads.current();
    const send = (licenseRequestType = 'license-request') =>
      createLicenseSender(engine)({
        keySystem: 'org.w3.clearkey',
        drmType: 'Widevine',
        cid: 'movie-1',
        url: 'http://localhost:3000/license',
        body: new Uint8Array([1]),
        licenseRequestType,
        session,
      });
    const down = (ms: number) => {
      downFrom = since();
      downUntil = downFrom + ms;
    };
    return { engine, session, send, down, since, tokenAt };
  }

  /**
   * A load licensed at 0; 41 s later (its token too old to reuse) the site fails with `status` for
   * `ms` as a request of `type` goes out.
   */
  async function downLater(status: number, ms: number, type: string) {
    const site = outage(status);
    await expect(site.send()).resolves.toEqual(LICENSE);
    await vi.advanceTimersByTimeAsync(41_000);
    site.down(ms);
    return { site, request: watch(site.send(type)) };
  }

  test('503 for 1 s as the load starts: token attempts at 0, 250, 750, 1750 ms; the load gets its license', async () => {
    const site = outage(503);
    site.down(1000);
    const run = watch(site.send());
    await vi.advanceTimersByTimeAsync(1749);
    expect(run.settled).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(site.tokenAt).toEqual([0, 250, 750, 1750]);
    expect(run.value).toEqual(LICENSE);
  });

  test('503 for 4 s as the load starts: the load’s window (3 s of waits) runs out at 1750 ms', async () => {
    const site = outage(503);
    site.down(4000);
    const run = watch(site.send());
    await vi.advanceTimersByTimeAsync(1750);
    expect(site.tokenAt).toEqual([0, 250, 750, 1750]);
    expect((run.error as TokenFetchError).status).toBe(503);
  });

  test('502 for 1 s at a key rotation 41 s in (the token too old to reuse): retried, playback keeps its license', async () => {
    const { site, request: rotation } = await downLater(502, 1000, 'license-request');
    await vi.advanceTimersByTimeAsync(1750);
    expect(site.tokenAt).toEqual([0, 41_000, 41_250, 41_750, 42_750]);
    expect(rotation.value).toEqual(LICENSE);
  });

  test('502 for 30 s at a renewal: attempts go on every 2 s and the renewal gets its license', async () => {
    const { site, request: renewal } = await downLater(502, 30_000, 'license-renewal');
    await vi.advanceTimersByTimeAsync(31_750);
    expect(site.tokenAt.slice(-3)).toEqual([68_750, 70_750, 72_750]);
    expect(renewal.value).toEqual(LICENSE);
  });

  test('502 through the whole renewal window: the error after 25 attempts and 43.75 s', async () => {
    const { site, request: renewal } = await downLater(502, 3_600_000, 'license-renewal');
    await vi.advanceTimersByTimeAsync(43_749);
    expect(renewal.settled).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect((renewal.error as TokenFetchError).status).toBe(502);
    expect(site.tokenAt.length - 1).toBe(25);
  });

  test('a renewal driver’s fresh token (getToken fresh, renewal): fetched past the cache, through a 1 s 502', async () => {
    const site = outage(502);
    await expect(site.send()).resolves.toEqual(LICENSE);
    site.down(1000);
    const fresh = watch(
      site.engine.getToken('movie-1', 'Widevine', site.session.signal, true, true),
    );
    await vi.advanceTimersByTimeAsync(1750);
    expect(site.tokenAt).toEqual([0, 0, 250, 750, 1750]);
    expect(fresh.value).toEqual({ value: 'token-5', source: 'network' });
  });

  test('403 at a renewal is the site’s answer: final at once, one attempt', async () => {
    const { site, request: renewal } = await downLater(403, 1000, 'license-renewal');
    await vi.advanceTimersByTimeAsync(0);
    expect((renewal.error as TokenFetchError).status).toBe(403);
    expect(site.tokenAt).toEqual([0, 41_000]);
  });

  test('the load ends during the renewal’s retries: they stop at once, no attempt after', async () => {
    const { site, request: renewal } = await downLater(502, 3_600_000, 'license-renewal');
    await vi.advanceTimersByTimeAsync(5000);
    const attempts = site.tokenAt.length;
    site.session.end('The player moved on to another asset.');
    await vi.advanceTimersByTimeAsync(0);
    expect((renewal.error as LicenseAuthError).code).toBe('ABORTED');
    await vi.advanceTimersByTimeAsync(60_000);
    expect(site.tokenAt).toHaveLength(attempts);
    expect(vi.getTimerCount()).toBe(0);
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
      createLicenseSender(engine)({
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
