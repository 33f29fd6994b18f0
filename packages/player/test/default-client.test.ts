// axios is the default client for the site's endpoint, a chunk loaded when the engine is made: an
// app that gives `fetch`, its own axios instance or `getToken` never loads it. The module's loads are
// counted through vi.mock, from the start of the file: a static import anywhere in the engine
// would count one before the first test.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test, vi } from 'vitest';
import { createEngine } from '../src/engine/engine.ts';
import { resolveOptions, type EngineOptions } from '../src/engine/options.ts';
import { DEFAULT_RETRY } from '../src/engine/retry.ts';
import { createSiteFetcher, lazyAxiosPost } from '../src/engine/site-client.ts';
import { newSeen, server, tokenEndpoint, TOKEN_URL } from './http-mocks.ts';

const loads = vi.hoisted(() => ({ count: 0 }));
vi.mock('axios', async (importOriginal) => {
  loads.count++;
  return importOriginal();
});

beforeAll(() => server.listen({ onUnhandledFrame: 'error' }));
beforeEach(() => server.use(tokenEndpoint(newSeen())));
afterEach(() => server.resetHandlers());
afterAll(() => server.close());

const tokenWith = async (options: Partial<EngineOptions>) => {
  const engine = createEngine(
    resolveOptions({ contentId: 'movie-1', tokenUrl: TOKEN_URL, ...options }),
  );
  try {
    return (await engine.getToken('movie-1', 'Widevine')).value;
  } finally {
    engine.destroy();
  }
};

describe('the default client', () => {
  test('with `fetch`, the token comes and axios is never loaded', async () => {
    expect(await tokenWith({ fetch: (input, init) => fetch(input, init) })).toBe(
      'token-1-Widevine-movie-1',
    );
    expect(loads.count).toBe(0);
  });

  test('with `getToken`, axios is never loaded either', async () => {
    const engine = createEngine(
      resolveOptions({ contentId: 'movie-1', getToken: () => Promise.resolve('from-the-app') }),
    );
    expect((await engine.getToken('movie-1', 'Widevine')).value).toBe('from-the-app');
    engine.destroy();
    expect(loads.count).toBe(0);
  });

  test('without `fetch` or `axios`, axios is loaded when the engine is made and fetches the tokens', async () => {
    const engine = createEngine(resolveOptions({ contentId: 'movie-1', tokenUrl: TOKEN_URL }));
    await vi.waitFor(() => expect(loads.count).toBe(1));
    expect((await engine.getToken('movie-1', 'Widevine')).value).toBe('token-1-Widevine-movie-1');
    expect((await engine.getToken('movie-1', 'PlayReady')).value).toBe('token-2-PlayReady-movie-1');
    expect(loads.count).toBe(1);
    engine.destroy();
  });

  test('a failed load says what failed and how to do without it, and is tried again', async () => {
    let attempts = 0;
    const post = lazyAxiosPost(() => {
      attempts++;
      return Promise.reject(new Error('Failed to fetch dynamically imported module'));
    });
    const signal = new AbortController().signal;
    await expect(post(TOKEN_URL, '{}', signal)).rejects.toThrow(
      'axios, the default HTTP client, could not be loaded (Failed to fetch dynamically imported module); give the fetch option to do without it',
    );
    await expect(post(TOKEN_URL, '{}', signal)).rejects.toThrow('could not be loaded');
    // The load started when made, which the first fetch waited for; then anew for the next fetch.
    expect(attempts).toBe(2);
  });

  test('the site fetcher turns a failed load into TOKEN_FETCH_FAILED naming it', async () => {
    const fetcher = createSiteFetcher(
      lazyAxiosPost(() => Promise.reject(new Error('offline'))),
      TOKEN_URL,
      'token',
      { ...DEFAULT_RETRY, maxAttempts: 1 },
    );
    const error = await fetcher({
      cid: 'movie-1',
      drmType: 'Widevine',
      signal: new AbortController().signal,
    }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'TOKEN_FETCH_FAILED' });
    expect((error as Error).message).toContain(
      'axios, the default HTTP client, could not be loaded (offline)',
    );
  });
});
