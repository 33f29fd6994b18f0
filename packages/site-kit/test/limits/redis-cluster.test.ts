import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLicenseLimits, type LimitsEvent } from '../../src/limits.ts';
import { createRateLimit } from '../../src/rate-limit/rate-limit.ts';
import { createRedisStore, type RedisStore, type RedisStoreEvent } from '../../src/redis.ts';
import { userKey } from '../../src/store/store.ts';
import { distinctPorts, startRedisCluster, type RedisCluster } from '../support/redis-cluster.ts';

let cluster: RedisCluster;
let store: RedisStore;
const storeEvents: RedisStoreEvent[] = [];
let run = 0;

beforeAll(async () => {
  cluster = await startRedisCluster();
  store = createRedisStore({
    cluster: { rootNodes: cluster.rootNodes },
    onEvent: (e) => storeEvents.push(e),
  });
  await store.ready();
  // A cluster start takes seconds on a busy machine: past vitest's 10 s hook default.
}, 60_000);
afterAll(async () => {
  await store?.close();
  await cluster?.stop();
});

/** One user whose keys live on each of the three masters, found by the cluster's own slot map. */
async function usersOnEachNode(prefix: string): Promise<Map<number, string>> {
  const users = new Map<number, string>();
  for (let i = 0; users.size < cluster.ports.length; i++) {
    const port = await cluster.portOf(userKey(prefix, `user-${i}`, 'streams'));
    if (!users.has(port)) users.set(port, `user-${i}`);
  }
  return users;
}

describe('limits on a Redis Cluster of three masters', () => {
  it('admit exactly the limit for users whose keys live on different nodes, asked at once', async () => {
    const keyPrefix = `c${++run}:`;
    const users = [...(await usersOnEachNode(keyPrefix)).values()];
    expect(users).toHaveLength(3);
    const limits = createLicenseLimits({ store, keyPrefix, maxStreams: 2 });
    const verdicts = await Promise.all(
      users.flatMap((userId) =>
        Array.from({ length: 40 }, (_, i) =>
          limits.check({ userId, deviceId: `d${i}`, cid: 'c' }).then((v) => ({ userId, v })),
        ),
      ),
    );
    for (const userId of users) {
      const mine = verdicts.filter((x) => x.userId === userId);
      expect(mine.filter((x) => x.v.allow)).toHaveLength(2);
      expect(mine.find((x) => !x.v.allow)?.v).toMatchObject({ kind: 'STREAM_LIMIT' });
    }
  });

  it('refuses a banned device, whose key lives in its own slot, for every user', async () => {
    const keyPrefix = `c${++run}:`;
    const users = [...(await usersOnEachNode(keyPrefix)).values()];
    const limits = createLicenseLimits({ store, keyPrefix, maxStreams: 5 });
    await limits.banDevice('tv-1');
    for (const userId of users) {
      expect(await limits.check({ userId, deviceId: 'tv-1' })).toMatchObject({
        allow: false,
        kind: 'DEVICE_BANNED',
      });
      expect((await limits.check({ userId, deviceId: 'tv-2' })).allow).toBe(true);
    }
  });

  it('rate-limits each user on the node of their slot over the store connection', async () => {
    const keyPrefix = `c${++run}:`;
    const limit = createRateLimit({
      store,
      keyPrefix,
      perUser: { points: 2, seconds: 60 },
      perAddress: false,
    });
    const users = [...(await usersOnEachNode(`${keyPrefix}rl:user:`)).values()];
    for (const userId of users) {
      expect((await limit.byUser(userId)).ok).toBe(true);
      expect((await limit.byUser(userId)).ok).toBe(true);
      expect(await limit.byUser(userId)).toMatchObject({ ok: false, status: 429 });
    }
  });

  it('takes the outage policy for the users of a killed master, counts the others, and counts them again once it restarts', async () => {
    const keyPrefix = `c${++run}:`;
    const byNode = await usersOnEachNode(keyPrefix);
    const [downPort, downUser] = [...byNode][0]!;
    const upUsers = [...byNode.values()].filter((u) => u !== downUser);
    const events: LimitsEvent[] = [];
    const limits = createLicenseLimits({
      store,
      keyPrefix,
      maxStreams: 1,
      deadlineMs: 200,
      onOutage: 'refuse',
      onEvent: (e) => events.push(e),
    });
    await cluster.kill(downPort);
    expect(await limits.check({ userId: downUser })).toMatchObject({
      allow: false,
      kind: 'LIMITS_UNAVAILABLE',
    });
    expect(events[0]).toMatchObject({ type: 'store-unavailable', outcome: 'refused' });
    for (const userId of upUsers) {
      expect((await limits.check({ userId, deviceId: 'a', cid: 'c' })).allow).toBe(true);
      expect((await limits.check({ userId, deviceId: 'b', cid: 'c' })).allow).toBe(false);
    }
    expect(
      storeEvents.some((e) => e.type === 'redis-error' && e.node?.endsWith(`:${downPort}`)),
    ).toBe(true);

    await cluster.restart(downPort);
    for (let i = 0; ; i++) {
      const verdict = await limits.check({ userId: downUser, deviceId: 'a', cid: 'c' });
      if (verdict.allow) break;
      if (i === 200) throw new Error('the node did not come back');
      await new Promise((r) => setTimeout(r, 25));
    }
    expect(storeEvents).toContainEqual({ type: 'redis-connected', node: `127.0.0.1:${downPort}` });
    expect((await limits.check({ userId: downUser, deviceId: 'b', cid: 'c' })).allow).toBe(false);
  });
});

describe('limits on a Redis Cluster that is not there yet', () => {
  // The test starts a cluster of its own (three servers, a `cluster create`, every node agreeing):
  // seconds on a busy 2-core machine, past vitest's 5 s default (a run timed out there).
  it(
    'take the outage policy at once, and count once the cluster comes up, with no restart',
    { timeout: 60_000 },
    async () => {
      const ports = await distinctPorts(3);
      const events: RedisStoreEvent[] = [];
      const later = createRedisStore({
        cluster: { rootNodes: ports.map((p) => ({ url: `redis://127.0.0.1:${p}` })) },
        onEvent: (e) => events.push(e),
      });
      let started: RedisCluster | undefined;
      try {
        const outages: LimitsEvent[] = [];
        const limits = createLicenseLimits({
          store: later,
          maxStreams: 1,
          onOutage: 'refuse',
          deadlineMs: 60_000,
          onEvent: (e) => outages.push(e),
        });
        expect(await limits.check({ userId: 'u', deviceId: 'a', cid: 'c' })).toMatchObject({
          allow: false,
          kind: 'LIMITS_UNAVAILABLE',
        });
        // Refused by the client at once (no connection), not by the deadline.
        expect(outages[0]).toMatchObject({ type: 'store-unavailable', cause: 'error' });

        started = await startRedisCluster(ports);
        await later.ready();
        expect(events).toContainEqual({ type: 'redis-connected' });
        expect(events.some((e) => e.type === 'redis-error')).toBe(true);
        expect(events.some((e) => e.type === 'redis-reconnecting')).toBe(true);
        expect((await limits.check({ userId: 'u', deviceId: 'a', cid: 'c' })).allow).toBe(true);
        expect((await limits.check({ userId: 'u', deviceId: 'b', cid: 'c' })).allow).toBe(false);
      } finally {
        await later.close();
        await started?.stop();
      }
    },
  );

  it('closes without ever connecting', async () => {
    const ports = await distinctPorts(3);
    const events: RedisStoreEvent[] = [];
    const never = createRedisStore({
      cluster: { rootNodes: ports.map((p) => ({ url: `redis://127.0.0.1:${p}` })) },
      onEvent: (e) => events.push(e),
    });
    await never.close();
    await never.ready();
    expect(events.some((e) => e.type === 'redis-connected')).toBe(false);
  });
});
