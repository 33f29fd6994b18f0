import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryStore } from '../../src/store/memory-store.ts';
import { createRedisStore, type RedisStore } from '../../src/store/redis-store.ts';
import { userKey, type SharedStore } from '../../src/store/store.ts';
import { startRedisCluster, type RedisCluster } from '../support/redis-cluster.ts';
import { startRedis, type RedisServer } from '../support/redis-server.ts';

let redis: RedisServer;
let redisStore: RedisStore;
let cluster: RedisCluster;
let clusterStore: RedisStore;
let run = 0;

beforeAll(async () => {
  [redis, cluster] = await Promise.all([startRedis(), startRedisCluster()]);
  redisStore = createRedisStore({ url: redis.url });
  clusterStore = createRedisStore({ cluster: { rootNodes: cluster.rootNodes } });
  await Promise.all([redisStore.ready(), clusterStore.ready()]);
  // A cluster start takes seconds on a busy machine: past vitest's 10 s hook default.
}, 60_000);
afterAll(async () => {
  await Promise.all([redisStore?.close(), clusterStore?.close()]);
  await Promise.all([redis?.stop(), cluster?.stop()]);
});

// The cluster's keys (t1:count, t2:nx, ...) spread over its three masters.
const stores: [string, () => SharedStore][] = [
  ['memory', () => createMemoryStore()],
  ['redis', () => redisStore],
  ['redis cluster', () => clusterStore],
];

describe.each(stores)('the %s store', (_name, make) => {
  // Each test its own keys: the Redis store is shared by the file.
  const key = (what: string) => `t${++run}:${what}`;
  const now = 1_000_000;

  it('counts up from 1 and forgets the counter after its time to live', async () => {
    const store = make();
    const k = key('count');
    expect(await store.increment(k, 60_000)).toBe(1);
    expect(await store.increment(k, 60_000)).toBe(2);
    const short = key('short');
    await store.increment(short, 1);
    await new Promise((r) => setTimeout(r, 20));
    expect(await store.increment(short, 1)).toBe(1);
  });

  it('sets a value only when the key holds none', async () => {
    const store = make();
    const k = key('nx');
    expect(await store.setIfAbsent(k, 'a')).toBe(true);
    expect(await store.setIfAbsent(k, 'b')).toBe(false);
    expect(await store.get(k)).toBe('a');
    await store.set(k, 'c');
    expect(await store.get(k)).toBe('c');
    expect(await store.delete(k)).toBe(true);
    expect(await store.delete(k)).toBe(false);
    expect(await store.get(k)).toBeUndefined();
  });

  it('forgets a value set with a time to live once it has passed', async () => {
    const store = make();
    const [nx, plain] = [key('nx-ttl'), key('set-ttl')];
    expect(await store.setIfAbsent(nx, 'a', 5)).toBe(true);
    await store.set(plain, 'b', 5);
    await store.set(key('kept'), 'c');
    await new Promise((r) => setTimeout(r, 30));
    expect(await store.get(nx)).toBeUndefined();
    expect(await store.get(plain)).toBeUndefined();
    expect(await store.setIfAbsent(nx, 'again', 60_000)).toBe(true);
    expect(await store.get(nx)).toBe('again');
  });

  it('admits members up to the limit, renews a counted one and refuses one more', async () => {
    const store = make();
    const k = key('set');
    const rule = { nowMs: now, untilMs: now + 30_000, limit: 2, evict: 'refuse' as const };
    expect(await store.admit(k, 'a', rule)).toEqual({
      admitted: true,
      renewed: false,
      count: 1,
      evicted: [],
    });
    expect((await store.admit(k, 'b', rule)).count).toBe(2);
    expect(await store.admit(k, 'c', rule)).toEqual({
      admitted: false,
      renewed: false,
      count: 2,
      evicted: [],
    });
    expect(await store.admit(k, 'a', { ...rule, untilMs: now + 60_000 })).toEqual({
      admitted: true,
      renewed: true,
      count: 2,
      evicted: [],
    });
    expect(await store.members(k, now)).toEqual(['b', 'a']);
  });

  it('drops the member that expires first to make room when told to evict the oldest', async () => {
    const store = make();
    const k = key('evict');
    const rule = { nowMs: now, untilMs: now + 30_000, limit: 2, evict: 'oldest' as const };
    await store.admit(k, 'a', { ...rule, untilMs: now + 10_000 });
    await store.admit(k, 'b', rule);
    expect(await store.admit(k, 'c', rule)).toEqual({
      admitted: true,
      renewed: false,
      count: 2,
      evicted: ['a'],
    });
    expect(await store.members(k, now)).toEqual(['b', 'c']);
  });

  it('stops counting a member whose time has passed, so a new one gets its place', async () => {
    const store = make();
    const k = key('expire');
    const rule = { nowMs: now, untilMs: now + 30_000, limit: 1, evict: 'refuse' as const };
    await store.admit(k, 'a', rule);
    expect((await store.admit(k, 'b', rule)).admitted).toBe(false);
    const later = { ...rule, nowMs: now + 30_000, untilMs: now + 60_000 };
    expect(await store.members(k, later.nowMs)).toEqual([]);
    expect(await store.admit(k, 'b', later)).toEqual({
      admitted: true,
      renewed: false,
      count: 1,
      evicted: [],
    });
  });

  it('removes a member, and a limit of 0 admits any number', async () => {
    const store = make();
    const k = key('remove');
    const rule = { nowMs: now, untilMs: now + 30_000, limit: 0, evict: 'refuse' as const };
    for (const m of ['a', 'b', 'c', 'd'])
      expect((await store.admit(k, m, rule)).admitted).toBe(true);
    expect(await store.remove(k, 'b')).toBe(true);
    expect(await store.remove(k, 'b')).toBe(false);
    expect(await store.members(k, now)).toEqual(['a', 'c', 'd']);
  });

  it('admits exactly the limit when many ask at once', async () => {
    const store = make();
    const k = key('race');
    const rule = { nowMs: now, untilMs: now + 30_000, limit: 3, evict: 'refuse' as const };
    const results = await Promise.all(
      Array.from({ length: 100 }, (_, i) => store.admit(k, `m${i}`, rule)),
    );
    expect(results.filter((r) => r.admitted)).toHaveLength(3);
  });
});

describe('the Redis store', () => {
  it('puts all of one user keys in one hash slot, whatever the user ID holds', () => {
    // Redis Cluster hashes only the {tag} of a key: one tag, one slot.
    const tag = (k: string) => /\{([^}]*)\}/.exec(k)![1];
    for (const user of ['alice', 'a}b{c', 'user:1']) {
      const keys = ['streams', 'devices', 'ban'].map((w) => userKey('p:', user, w));
      expect(new Set(keys.map(tag)).size).toBe(1);
    }
    expect(tag(userKey('p:', 'a}b', 'ban'))).toBe('u:a%7Db');
  });

  it('refuses a URL that is not redis://', () => {
    expect(() => createRedisStore({ url: 'http://x' })).toThrow(
      'url: must be a redis:// or rediss:// URL',
    );
  });

  it('refuses a cluster without root nodes, or with one that is not redis://', () => {
    const message =
      'cluster.rootNodes: must be one or more { url } with a redis:// or rediss:// URL';
    expect(() => createRedisStore({ cluster: { rootNodes: [] } })).toThrow(message);
    expect(() => createRedisStore({ cluster: { rootNodes: [{ url: 'http://x' }] } })).toThrow(
      message,
    );
  });
});
