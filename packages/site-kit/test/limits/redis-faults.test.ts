import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createGatewayHandler,
  decodeGatewayResponse,
  encodeGatewayRequest,
} from '../../src/gateway.ts';
import { createLicenseLimits, type LimitsEvent, type LicenseLimits } from '../../src/limits.ts';
import { toNodeListener } from '../../src/node.ts';
import { createRedisStore, type RedisStore, type RedisStoreEvent } from '../../src/redis.ts';
import { listen, type TestServer } from '../http/server.ts';
import { startRedis, type RedisServer } from '../support/redis-server.ts';

const SITE_KEY = 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa';

let redis: RedisServer;
let store: RedisStore;
const storeEvents: RedisStoreEvent[] = [];
let run = 0;
const servers: TestServer[] = [];

beforeAll(async () => {
  redis = await startRedis();
  store = createRedisStore({ url: redis.url, onEvent: (e) => storeEvents.push(e) });
  await store.ready();
});
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
  await store?.close();
  await redis?.stop();
});

function limitsWith(onOutage: 'allow' | 'refuse', events: LimitsEvent[]) {
  return createLicenseLimits({
    store,
    keyPrefix: `f${++run}:`,
    maxStreams: 1,
    deadlineMs: 100,
    onOutage,
    onEvent: (e) => events.push(e),
  });
}

/** A gateway over the limits, served over HTTP as a site serves it. */
async function gatewayOver(limits: LicenseLimits) {
  const server = await listen(
    toNodeListener(
      createGatewayHandler({
        siteKey: SITE_KEY,
        authorize: async (request) => {
          const verdict = await limits.check({ userId: request.user_id, cid: request.cid });
          if (!verdict.allow) return verdict.gateway;
          return { allow: true, playback_policy: { limit: true, duration: 60 } };
        },
      }),
    ),
  );
  servers.push(server);
  return async (user: string) => {
    const body = encodeGatewayRequest(
      { format: 'json', user_id: user, cid: 'c', nonce: 'n', drm_type: 'Widevine' },
      SITE_KEY,
    );
    const answer = await fetch(server.url, { method: 'POST', body });
    const decoded = decodeGatewayResponse(await answer.text(), 'json', SITE_KEY);
    return { status: answer.status, code: decoded.format === 'json' ? decoded.error_code : '' };
  };
}

/** Asks until the store answers again: it reconnects by itself, the site is never restarted. */
async function untilCounted(limits: LicenseLimits): Promise<void> {
  for (let i = 0; i < 200; i++) {
    const verdict = await limits.check({ userId: `probe-${i}` });
    if (verdict.allow && !verdict.unchecked) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('the store did not come back');
}

describe('limits on a Redis that was never there', () => {
  it('take the outage policy at once, and the store closes without ever connecting', async () => {
    const events: RedisStoreEvent[] = [];
    // A port nothing listens on: the one of a Redis started and stopped.
    const gone = await startRedis();
    await gone.stop();
    const absent = createRedisStore({ url: gone.url, onEvent: (e) => events.push(e) });
    const outages: LimitsEvent[] = [];
    const limits = createLicenseLimits({
      store: absent,
      onOutage: 'refuse',
      deadlineMs: 60_000,
      onEvent: (e) => outages.push(e),
    });
    expect(await limits.check({ userId: 'u' })).toMatchObject({
      allow: false,
      kind: 'LIMITS_UNAVAILABLE',
    });
    // Refused by the client at once (no connection), not by the deadline.
    expect(outages[0]).toMatchObject({ type: 'store-unavailable', cause: 'error' });
    await absent.close();
    expect(events.some((e) => e.type === 'redis-connected')).toBe(false);
  });
});

describe('limits on a Redis that stalls, dies and comes back', () => {
  it('decide past the deadline while Redis is paused: open or closed as the site chose', async () => {
    const openEvents: LimitsEvent[] = [];
    const closedEvents: LimitsEvent[] = [];
    const open = limitsWith('allow', openEvents);
    const closed = limitsWith('refuse', closedEvents);
    const askClosed = await gatewayOver(closed);
    redis.pause();
    try {
      expect(await open.check({ userId: 'u' })).toMatchObject({ allow: true, unchecked: true });
      expect(await askClosed('u')).toEqual({ status: 200, code: '6105' });
    } finally {
      redis.resume();
    }
    const outage = {
      type: 'store-unavailable',
      decision: 'limits',
      cause: 'timeout',
      reason: 'no answer within 100 ms',
    };
    expect(openEvents).toEqual([{ ...outage, outcome: 'allowed' }]);
    expect(closedEvents).toEqual([
      { ...outage, outcome: 'refused' },
      { type: 'limit-refused', kind: 'LIMITS_UNAVAILABLE' },
    ]);
    // Counting again: the user's one stream is taken now, another is refused.
    expect(await askClosed('v')).toEqual({ status: 200, code: '0000' });
    expect(await askClosed('v')).toEqual({ status: 200, code: '6101' });
  });

  it('settle every decision when Redis is killed mid-run, answer without it, and count again once it restarts', async () => {
    const events: LimitsEvent[] = [];
    const closedEvents: LimitsEvent[] = [];
    const open = limitsWith('allow', events);
    const closed = limitsWith('refuse', closedEvents);
    const askClosed = await gatewayOver(closed);
    const inFlight = Array.from({ length: 100 }, (_, i) => open.check({ userId: `user-${i}` }));
    await redis.kill();
    const verdicts = await Promise.all(inFlight);
    // Each was decided by Redis before it died, or let through without it: none hangs or throws.
    expect(verdicts.every((v) => v.allow)).toBe(true);
    expect(await open.check({ userId: 'late' })).toMatchObject({ allow: true, unchecked: true });
    expect(events.at(-1)).toMatchObject({ type: 'store-unavailable', outcome: 'allowed' });
    expect(await askClosed('w')).toEqual({ status: 200, code: '6105' });
    expect(closedEvents[0]).toMatchObject({ type: 'store-unavailable', outcome: 'refused' });
    expect(storeEvents.some((e) => e.type === 'redis-error')).toBe(true);

    await redis.restart();
    await untilCounted(open);
    expect(storeEvents.at(-1)).toEqual({ type: 'redis-connected' });
    expect(await askClosed('w')).toEqual({ status: 200, code: '0000' });
    expect(await askClosed('w')).toEqual({ status: 200, code: '6101' });
  });
});
