import { describe, expect, test } from 'vitest';
import { createTokenCache } from '../src/engine/token-cache.ts';

function deferred<T>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => ((resolve = res), (reject = rej)));
  return { promise, resolve, reject };
}

describe('token cache', () => {
  const make = (clock: { now: number }) =>
    createTokenCache({ lifetimeMs: 60_000, minRemainingMs: 20_000, now: () => clock.now });

  test('one fetch serves every caller that asks while it is under way', async () => {
    const cache = make({ now: 0 });
    const pending = deferred<string>();
    let fetches = 0;
    const fetch = () => (fetches++, pending.promise);
    const all = Promise.all([cache.get('k', fetch), cache.get('k', fetch), cache.get('k', fetch)]);
    pending.resolve('t1');
    expect((await all).map((r) => `${r.value}/${r.source}`)).toEqual([
      't1/network',
      't1/shared',
      't1/shared',
    ]);
    expect(fetches).toBe(1);
  });

  test('age is counted from the start of the fetch: the site may have stamped the token then', async () => {
    const clock = { now: 0 };
    const cache = make(clock);
    await cache.get('k', async () => {
      clock.now += 5_000; // a slow site: the token arrives at 5 s, stamped somewhere in between
      return 't1';
    });
    clock.now = 39_999; // at most 39.999 s old
    expect((await cache.get('k', async () => 't2')).value).toBe('t1');
    clock.now = 40_000; // it may be 40 s old: only 20 s of its 60 s may be left
    expect(await cache.get('k', async () => 't2')).toEqual({ value: 't2', source: 'network' });
  });

  test('fresh: a fetch even while a reusable token is cached; the fresh token is cached after it', async () => {
    const cache = make({ now: 0 });
    await cache.get('k', async () => 't1');
    expect(await cache.get('k', async () => 't2', undefined, true)).toEqual({
      value: 't2',
      source: 'network',
    });
    expect(await cache.get('k', async () => 't3')).toEqual({ value: 't2', source: 'cache' });
  });

  test('fresh joins a fetch already under way rather than starting a second', async () => {
    const cache = make({ now: 0 });
    const pending = deferred<string>();
    let fetches = 0;
    const fetch = () => (fetches++, pending.promise);
    const first = cache.get('k', fetch);
    const fresh = cache.get('k', fetch, undefined, true);
    pending.resolve('t1');
    expect((await fresh).source).toBe('shared');
    expect((await first).value).toBe('t1');
    expect(fetches).toBe(1);
  });

  test('keys are independent', async () => {
    const cache = make({ now: 0 });
    await cache.get('a', async () => 'ta');
    expect((await cache.get('b', async () => 'tb')).value).toBe('tb');
    expect((await cache.get('a', async () => 'other')).value).toBe('ta');
  });

  test('invalidate forgets only the refused token', async () => {
    const cache = make({ now: 0 });
    await cache.get('k', async () => 't1');
    cache.invalidate('k', 'old-token');
    expect((await cache.get('k', async () => 't2')).value).toBe('t1');
    cache.invalidate('k', 't1');
    expect((await cache.get('k', async () => 't2')).value).toBe('t2');
  });

  test('a failed fetch is not cached, the next caller tries again', async () => {
    const cache = make({ now: 0 });
    await expect(cache.get('k', () => Promise.reject(new Error('down')))).rejects.toThrow('down');
    expect((await cache.get('k', async () => 't2')).value).toBe('t2');
  });

  test('clear aborts the fetch signal, rejects every waiter at once and forgets every token', async () => {
    const cache = make({ now: 0 });
    let signal: AbortSignal | undefined;
    const never = (s: AbortSignal) => {
      signal = s;
      return new Promise<string>((_, reject) =>
        s.addEventListener('abort', () => reject(s.reason)),
      );
    };
    await cache.get('kept', async () => 'old-user');
    const waiting = Promise.allSettled([cache.get('k', never), cache.get('k', never)]);
    cache.clear(new Error('signed out'));
    const results = await waiting;
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    expect(signal?.aborted).toBe(true);
    expect((await cache.get('kept', async () => 'new-user')).value).toBe('new-user');
    // A late answer of the aborted fetch does not land in the cache.
    expect((await cache.get('k', async () => 'fresh')).source).toBe('network');
  });

  test('1,000 titles in a row: the cache keeps the newest 32 tokens, the oldest go first', async () => {
    const cache = make({ now: 0 });
    for (let i = 0; i < 1000; i++) await cache.get(`cid-${i}`, async () => `t${i}`);
    expect(cache.size).toBe(32);
    expect((await cache.get('cid-999', async () => 'new')).source).toBe('cache');
    expect((await cache.get('cid-968', async () => 'new')).source).toBe('cache');
    expect((await cache.get('cid-967', async () => 'new')).source).toBe('network');
  });

  test('maxEntries sets the bound; a token fetched again counts as the newest', async () => {
    const cache = createTokenCache({
      lifetimeMs: 60,
      minRemainingMs: 20,
      now: () => 0,
      maxEntries: 2,
    });
    await cache.get('a', async () => 'ta');
    await cache.get('b', async () => 'tb');
    cache.invalidate('a', 'ta');
    await cache.get('a', async () => 'ta2');
    await cache.get('c', async () => 'tc');
    expect(cache.size).toBe(2);
    expect((await cache.get('a', async () => 'x')).value).toBe('ta2');
    expect((await cache.get('b', async () => 'tb2')).source).toBe('network');
  });

  test('destroy aborts with ABORTED and empties the cache', async () => {
    const cache = make({ now: 0 });
    await cache.get('k', async () => 't1');
    const waiting = cache.get(
      'other',
      (s) =>
        new Promise<string>((_, reject) => s.addEventListener('abort', () => reject(s.reason))),
    );
    cache.destroy();
    await expect(waiting).rejects.toMatchObject({ code: 'ABORTED' });
    expect((await cache.get('k', async () => 't2')).value).toBe('t2');
  });

  test('a waiter whose signal aborts leaves; the fetch goes on while another still waits', async () => {
    const cache = make({ now: 0 });
    const pending = deferred<string>();
    let signal: AbortSignal | undefined;
    const fetch = (s: AbortSignal) => ((signal = s), pending.promise);
    const a = new AbortController();
    const b = new AbortController();
    const first = cache.get('k', fetch, a.signal);
    const second = cache.get('k', fetch, b.signal);
    a.abort(new Error('A moved on'));
    await expect(first).rejects.toThrow('A moved on');
    expect(signal?.aborted).toBe(false);
    pending.resolve('t1');
    expect((await second).value).toBe('t1');
  });

  test('when the last waiter leaves, the fetch is aborted and its late token dropped', async () => {
    const cache = make({ now: 0 });
    const late = deferred<string>();
    let signal: AbortSignal | undefined;
    const a = new AbortController();
    const waiting = cache.get('k', (s) => ((signal = s), late.promise), a.signal);
    a.abort(new Error('A moved on'));
    await expect(waiting).rejects.toThrow('A moved on');
    expect(signal?.aborted).toBe(true);
    late.resolve('late');
    expect((await cache.get('k', async () => 'fresh')).value).toBe('fresh');
  });
});
