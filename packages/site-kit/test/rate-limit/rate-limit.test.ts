import type { RedisClientType } from '@redis/client';
import { RateLimiterRedis } from 'rate-limiter-flexible';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createCustomDataHandler,
  createLicenseProxy,
  createTokenHandler,
} from '../../src/index.ts';
import { toNodeListener } from '../../src/node.ts';
import { createRateLimit, type RateLimitOptions } from '../../src/limits.ts';
import { createRedisStore, type RedisStore } from '../../src/redis.ts';
import type { StoreOutageEvent } from '../../src/store/deadline.ts';
import { deviceKey } from '../../src/store/store.ts';
import { listen, type TestServer } from '../http/server.ts';
import { startRedis, type RedisServer } from '../support/redis-server.ts';
import { TUTO } from '../support/site.ts';

let redis: RedisServer;
let store: RedisStore;
const servers: TestServer[] = [];
let run = 0;

beforeAll(async () => {
  redis = await startRedis();
  store = createRedisStore({ url: redis.url });
  await store.ready();
});
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
  await store?.close();
  await redis?.stop();
});

/** A token endpoint that grants the user named by the x-user header, behind a rate limit. */
async function tokenSite(rate: RateLimitOptions | undefined): Promise<string> {
  const handler = createTokenHandler({
    ...TUTO,
    authorize: (request) => ({ allow: true, userId: request.headers.get('x-user') ?? 'u' }),
    ...(rate === undefined
      ? {}
      : {
          rateLimit: createRateLimit({
            keyPrefix: `t${++run}:`,
            clientAddress: (request) => request.headers.get('x-client') ?? undefined,
            ...rate,
          }),
        }),
  });
  const server = await listen(toNodeListener(handler));
  servers.push(server);
  return server.url;
}

/** Retry-After: what is left of the window, whole seconds (the window began a moment ago). */
function secondsLeft(answer: Response, window: number): number {
  const retry = Number(answer.headers.get('retry-after'));
  expect(retry).toBeGreaterThan(0);
  expect(retry).toBeLessThanOrEqual(window);
  return retry;
}

const ask = (url: string, headers: Record<string, string> = {}) =>
  fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ cid: 'c1', drm_type: 'Widevine' }),
  });

describe('rate limits of the token endpoint', () => {
  it('are off by default: no budget, no RateLimit header', async () => {
    const url = await tokenSite(undefined);
    for (let i = 0; i < 5; i++) {
      const answer = await ask(url);
      expect(answer.status).toBe(200);
      expect(answer.headers.get('ratelimit')).toBeNull();
    }
  });

  it('answer 429 with Retry-After once a client address is over its budget, and tell the budget', async () => {
    const url = await tokenSite({ perAddress: { points: 2, seconds: 60 }, perUser: false });
    const first = await ask(url, { 'x-client': 'a' });
    expect(first.status).toBe(200);
    expect(first.headers.get('ratelimit-policy')).toBe('"address";q=2;w=60');
    expect(first.headers.get('ratelimit')).toBe('"address";r=1;t=60');
    expect((await ask(url, { 'x-client': 'a' })).status).toBe(200);
    const third = await ask(url, { 'x-client': 'a' });
    expect(third.status).toBe(429);
    const retry = secondsLeft(third, 60);
    expect(third.headers.get('ratelimit')).toBe(`"address";r=0;t=${retry}`);
    expect(await third.text()).toBe(`Too many requests; try again in ${retry} s.`);
    // Another address has its own budget.
    expect((await ask(url, { 'x-client': 'b' })).status).toBe(200);
  });

  it('count each user across addresses once authorize names them', async () => {
    const url = await tokenSite({ perAddress: false, perUser: { points: 1, seconds: 30 } });
    expect((await ask(url, { 'x-user': 'alice', 'x-client': 'a' })).status).toBe(200);
    const again = await ask(url, { 'x-user': 'alice', 'x-client': 'b' });
    expect(again.status).toBe(429);
    expect(again.headers.get('ratelimit-policy')).toBe('"user";q=1;w=30');
    expect((await ask(url, { 'x-user': 'bob', 'x-client': 'a' })).status).toBe(200);
  });

  it('list both budgets on an answer when both count', async () => {
    const url = await tokenSite({
      perAddress: { points: 5, seconds: 60 },
      perUser: { points: 3, seconds: 60 },
    });
    const answer = await ask(url, { 'x-client': 'a' });
    expect(answer.headers.get('ratelimit-policy')).toBe('"address";q=5;w=60, "user";q=3;w=60');
    expect(answer.headers.get('ratelimit')).toBe('"address";r=4;t=60, "user";r=2;t=60');
  });

  it('count on the socket address under node:http when the site reads none', async () => {
    const handler = createTokenHandler({
      ...TUTO,
      authorize: () => ({ allow: true, userId: 'u' }),
      rateLimit: createRateLimit({ perAddress: { points: 1, seconds: 60 }, perUser: false }),
    });
    const server = await listen(toNodeListener(handler));
    servers.push(server);
    expect((await ask(server.url)).status).toBe(200);
    expect((await ask(server.url)).status).toBe(429);
  });

  it('count no address they do not know (a web runtime without clientAddress), nor one that fails to be read', async () => {
    for (const clientAddress of [
      undefined,
      () => {
        throw new Error('no header');
      },
    ]) {
      const handler = createTokenHandler({
        ...TUTO,
        authorize: () => ({ allow: true, userId: 'u' }),
        rateLimit: createRateLimit({
          perAddress: { points: 1, seconds: 60 },
          perUser: false,
          ...(clientAddress === undefined ? {} : { clientAddress }),
        }),
      });
      const post = () =>
        handler(
          new Request('https://site.example/token', {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ cid: 'c1', drm_type: 'Widevine' }),
          }),
        );
      for (let i = 0; i < 3; i++) {
        const answer = await post();
        expect(answer.status).toBe(200);
        expect(answer.headers.get('ratelimit')).toBeNull();
      }
    }
  });

  it('hold across servers sharing a Redis store', async () => {
    const rate = { store, perAddress: { points: 3, seconds: 60 }, perUser: false as const };
    const prefix = `shared${++run}:`;
    const made = () =>
      createTokenHandler({
        ...TUTO,
        authorize: () => ({ allow: true, userId: 'u' }),
        rateLimit: createRateLimit({
          ...rate,
          keyPrefix: prefix,
          clientAddress: () => '203.0.113.7',
        }),
      });
    const [a, b] = await Promise.all([
      listen(toNodeListener(made())),
      listen(toNodeListener(made())),
    ]);
    servers.push(a, b);
    const statuses = [];
    for (const url of [a.url, b.url, a.url, b.url]) statuses.push((await ask(url)).status);
    expect(statuses).toEqual([200, 200, 200, 429]);
  });

  it('count over Redis with the registered script (EVALSHA), on the keys rate-limiter-flexible uses', async () => {
    const calls = async () => {
      // A single node's client (this store was made with a url, not a cluster).
      const client = store.client as RedisClientType;
      const stats = String(await client.sendCommand(['INFO', 'commandstats']));
      const count = (name: string) =>
        Number(new RegExp(`cmdstat_${name}:calls=(\\d+)`).exec(stats)?.[1] ?? 0);
      return { eval: count('eval'), evalsha: count('evalsha') };
    };
    const prefix = `sha${++run}:`;
    // The library's own limiter counts a first request on the same key, as a site before this
    // change did: the window it began goes on.
    const library = new RateLimiterRedis({
      storeClient: store.client,
      useRedisPackage: true,
      points: 3,
      duration: 60,
      keyPrefix: `${prefix}rl:address`,
    });
    await library.consume(deviceKey('', '203.0.113.9', 'a'));
    const url = await tokenSite({
      store,
      keyPrefix: prefix,
      perAddress: { points: 3, seconds: 60 },
      perUser: false,
    });
    const first = await ask(url, { 'x-client': '203.0.113.9' });
    expect(first.headers.get('ratelimit')).toMatch(/^"address";r=1;t=(60|59)$/);
    // From here the script is in Redis's cache whatever ran before (a first EVALSHA of a Redis
    // that never saw it is refused with NOSCRIPT, and node-redis sends EVAL once).
    const before = await calls();
    expect((await ask(url, { 'x-client': '203.0.113.9' })).status).toBe(200);
    const third = await ask(url, { 'x-client': '203.0.113.9' });
    expect(third.status).toBe(429);
    secondsLeft(third, 60);
    const after = await calls();
    expect(after.eval - before.eval).toBe(0);
    expect(after.evalsha - before.evalsha).toBe(2);
  });
});

describe('rate limits of the custom-data endpoint and the proxy', () => {
  it('refuse the custom-data endpoint past the budget', async () => {
    const handler = createCustomDataHandler({
      ...TUTO,
      authorize: () => ({ allow: true, userId: 'u' }),
      rateLimit: createRateLimit({ perAddress: false, perUser: { points: 1, seconds: 10 } }),
    });
    const server = await listen(toNodeListener(handler));
    servers.push(server);
    expect((await ask(server.url)).status).toBe(200);
    const over = await ask(server.url);
    expect(over.status).toBe(429);
    secondsLeft(over, 10);
  });

  it('refuse the proxy past the budget with RATE_LIMITED before the service is called', async () => {
    let calls = 0;
    const proxy = createLicenseProxy({
      ...TUTO,
      licenseUrl: 'https://license.example/ri/licenseManager.do',
      authorize: () => ({ allow: true, userId: 'u' }),
      fetch: async () => {
        calls++;
        return new Response(new Uint8Array([1, 2, 3]));
      },
      rateLimit: createRateLimit({ perAddress: false, perUser: { points: 2, seconds: 60 } }),
    });
    const license = () =>
      proxy(
        new Request('https://site.example/license?drmType=widevine&cid=c1', {
          method: 'POST',
          body: new Uint8Array([9]),
        }),
      );
    expect((await license()).status).toBe(200);
    expect((await license()).status).toBe(200);
    const over = await license();
    expect(over.status).toBe(429);
    const retry = secondsLeft(over, 60);
    expect(await over.json()).toEqual({
      code: 'RATE_LIMITED',
      message: `Too many requests; try again in ${retry} s.`,
    });
    expect(calls).toBe(2);
  });
});

describe('rate limits when Redis stalls', () => {
  const CLIENT = { 'x-client': '198.51.100.1' };
  const stalledSite = async (onOutage: 'allow' | 'refuse', events: StoreOutageEvent[]) =>
    tokenSite({
      store,
      deadlineMs: 50,
      onOutage,
      onEvent: (e) => events.push(e),
      perAddress: { points: 100, seconds: 60 },
      perUser: false,
    });

  it('let requests through past the deadline, or answer 503, as the site chose; then count again', async () => {
    const allowing: StoreOutageEvent[] = [];
    const refusing: StoreOutageEvent[] = [];
    const open = await stalledSite('allow', allowing);
    const closed = await stalledSite('refuse', refusing);
    redis.pause();
    try {
      const passed = await ask(open, CLIENT);
      expect(passed.status).toBe(200);
      expect(passed.headers.get('ratelimit')).toBeNull();
      const refused = await ask(closed, CLIENT);
      expect(refused.status).toBe(503);
      expect(refused.headers.get('retry-after')).toBe('1');
      expect(await refused.text()).toBe(
        'The site cannot count requests right now; try again in a moment.',
      );
    } finally {
      redis.resume();
    }
    expect(allowing).toEqual([
      {
        type: 'store-unavailable',
        decision: 'rate-limit',
        cause: 'timeout',
        reason: 'no answer within 50 ms',
        outcome: 'allowed',
      },
    ]);
    expect(refusing).toMatchObject([{ outcome: 'refused', cause: 'timeout' }]);
    const back = await ask(closed, CLIENT);
    expect(back.status).toBe(200);
    expect(back.headers.get('ratelimit')).toMatch(/^"address";r=\d+;t=\d+$/);
  });
});
