// The site's endpoint is asked with the page's `fetch` unless the app gives its own `fetch` or its
// axios instance: the package never imports axios, so no bundler puts it in an app that does not
// use it (test/packaging/player-size.test.ts checks the bundles).
import axios from 'axios';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { createEngine } from '../src/engine/engine.ts';
import { resolveOptions, type EngineOptions } from '../src/engine/options.ts';
import { newSeen, server, tokenEndpoint, TOKEN_URL, type Seen } from './http-mocks.ts';

let seen: Seen;
beforeAll(() => server.listen({ onUnhandledFrame: 'error' }));
beforeEach(() => {
  seen = newSeen();
  server.use(tokenEndpoint(seen));
});
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

describe('the client for the site’s endpoint', () => {
  test('by default the page’s fetch asks the site', async () => {
    expect(await tokenWith({})).toBe('token-1-Widevine-movie-1');
    expect(seen.token).toEqual([{ cid: 'movie-1', drm_type: 'Widevine' }]);
  });

  test('with `fetch`, that function asks the site, with the user’s cookies', async () => {
    const inits: RequestInit[] = [];
    const token = await tokenWith({
      fetch: (input, init) => (inits.push(init), fetch(input, init)),
    });
    expect(token).toBe('token-1-Widevine-movie-1');
    expect(inits.map((i) => [i.method, i.credentials])).toEqual([['POST', 'include']]);
  });

  test('with the app’s axios instance, its interceptors see the request', async () => {
    const http = axios.create();
    const intercepted: string[] = [];
    http.interceptors.request.use((config) => {
      intercepted.push(String(config.url));
      return config;
    });
    expect(await tokenWith({ axios: http })).toBe('token-1-Widevine-movie-1');
    expect(intercepted).toEqual([TOKEN_URL]);
  });
});
