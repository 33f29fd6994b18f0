import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SiteKitError } from '../../src/errors.ts';
import { deviceIdFromClientMeta } from '../../src/limits/device-id.ts';
import {
  createLicenseLimits,
  type LicenseLimitsOptions,
  type LimitsEvent,
} from '../../src/limits/license-limits.ts';
import { createMemoryStore } from '../../src/store/memory-store.ts';
import { createRedisStore, type RedisStore } from '../../src/store/redis-store.ts';
import type { SharedStore } from '../../src/store/store.ts';
import { startRedis, type RedisServer } from '../support/redis-server.ts';

let redis: RedisServer;
let redisStore: RedisStore;
let run = 0;

beforeAll(async () => {
  redis = await startRedis();
  redisStore = createRedisStore({ url: redis.url });
  await redisStore.ready();
});
afterAll(async () => {
  await redisStore?.close();
  await redis?.stop();
});

const stores: [string, () => SharedStore][] = [
  ['memory', () => createMemoryStore()],
  ['redis', () => redisStore],
];

describe.each(stores)('limits over the %s store', (_name, store) => {
  let clock = 1_700_000_000_000;
  const limitsWith = (options: LicenseLimitsOptions) =>
    createLicenseLimits({ store: store(), keyPrefix: `t${++run}:`, now: () => clock, ...options });

  it('refuses a stream over the limit with the gateway code and sentence the player shows', async () => {
    const limits = limitsWith({ maxStreams: 2 });
    expect((await limits.check({ userId: 'u', deviceId: 'd1', cid: 'c' })).allow).toBe(true);
    expect((await limits.check({ userId: 'u', deviceId: 'd2', cid: 'c' })).allow).toBe(true);
    const third = await limits.check({ userId: 'u', deviceId: 'd3', cid: 'c' });
    expect(third).toEqual({
      allow: false,
      kind: 'STREAM_LIMIT',
      gateway: {
        allow: false,
        error_code: '6101',
        error_message: 'Too many streams at once: stop playing on another screen and try again.',
      },
      site: {
        allow: false,
        status: 403,
        reason: 'Too many streams at once: stop playing on another screen and try again.',
      },
    });
    // Another user is counted on their own.
    expect((await limits.check({ userId: 'v', deviceId: 'd3', cid: 'c' })).allow).toBe(true);
  });

  it('renews a counted stream (same device and content, or same stream ID) at the limit', async () => {
    const limits = limitsWith({ maxStreams: 1 });
    await limits.check({ userId: 'u', deviceId: 'd1', cid: 'c' });
    clock += 50_000;
    expect(await limits.check({ userId: 'u', deviceId: 'd1', cid: 'c' })).toMatchObject({
      allow: true,
      renewal: true,
      streams: 1,
    });
    const named = limitsWith({ maxStreams: 1 });
    await named.check({ userId: 'u', streamId: 'session-1' });
    expect(await named.check({ userId: 'u', streamId: 'session-1' })).toMatchObject({
      renewal: true,
    });
    expect((await named.check({ userId: 'u', streamId: 'session-2' })).allow).toBe(false);
  });

  it('stops counting a stream once its renewal interval and grace have passed', async () => {
    const limits = limitsWith({ maxStreams: 1, renewalIntervalSeconds: 60, graceSeconds: 30 });
    await limits.check({ userId: 'u', deviceId: 'd1', cid: 'c' });
    clock += 89_000;
    expect((await limits.check({ userId: 'u', deviceId: 'd2', cid: 'c' })).allow).toBe(false);
    clock += 1_000;
    expect(await limits.check({ userId: 'u', deviceId: 'd2', cid: 'c' })).toMatchObject({
      allow: true,
      renewal: false,
    });
  });

  it('drops the least recently renewed stream for a new one when told to evict the oldest', async () => {
    const events: LimitsEvent[] = [];
    const limits = limitsWith({ maxStreams: 2, evict: 'oldest', onEvent: (e) => events.push(e) });
    await limits.check({ userId: 'u', streamId: 'a' });
    clock += 1_000;
    await limits.check({ userId: 'u', streamId: 'b' });
    clock += 1_000;
    await limits.check({ userId: 'u', streamId: 'a' });
    expect(await limits.check({ userId: 'u', streamId: 'c' })).toMatchObject({
      allow: true,
      streams: 2,
      evicted: { streams: ['s:b'], devices: [] },
    });
    expect(events).toEqual([{ type: 'limit-evicted', streams: 1, devices: 0 }]);
    // b was dropped: it comes back as a new stream, not a renewal.
    expect(await limits.check({ userId: 'u', streamId: 'b' })).toMatchObject({ renewal: false });
  });

  it('refuses a device over the limit, and frees its place when the site removes one', async () => {
    const limits = limitsWith({ maxDevices: 2 });
    await limits.check({ userId: 'u', deviceId: 'd1' });
    await limits.check({ userId: 'u', deviceId: 'd2' });
    expect(await limits.check({ userId: 'u', deviceId: 'd1' })).toMatchObject({ devices: 2 });
    expect(await limits.check({ userId: 'u', deviceId: 'd3' })).toMatchObject({
      allow: false,
      kind: 'DEVICE_LIMIT',
      gateway: { error_code: '6102' },
    });
    expect(await limits.removeDevice('u', 'd2')).toBe(true);
    expect((await limits.check({ userId: 'u', deviceId: 'd3' })).allow).toBe(true);
  });

  it('frees a stream the site ends', async () => {
    const limits = limitsWith({ maxStreams: 1 });
    await limits.check({ userId: 'u', streamId: 'a' });
    expect(await limits.endStream({ userId: 'u', streamId: 'a' })).toBe(true);
    expect((await limits.check({ userId: 'u', streamId: 'b' })).allow).toBe(true);
  });

  it('refuses a banned user or device on the next license until unbanned', async () => {
    const limits = limitsWith({});
    await limits.banUser('u');
    expect(await limits.check({ userId: 'u' })).toMatchObject({
      allow: false,
      kind: 'USER_BANNED',
      gateway: { error_code: '6103', error_message: 'This account may not play content.' },
    });
    await limits.unbanUser('u');
    await limits.banDevice('d');
    expect(await limits.check({ userId: 'u', deviceId: 'd' })).toMatchObject({
      kind: 'DEVICE_BANNED',
      gateway: { error_code: '6104' },
    });
    expect((await limits.check({ userId: 'u', deviceId: 'e' })).allow).toBe(true);
    await limits.unbanDevice('d');
    expect((await limits.check({ userId: 'u', deviceId: 'd' })).allow).toBe(true);
  });

  it('lifts a ban given for a while once its time has passed', async () => {
    const limits = limitsWith({});
    await limits.banUser('u', { seconds: 0.01 });
    expect((await limits.check({ userId: 'u' })).allow).toBe(false);
    await new Promise((r) => setTimeout(r, 30));
    expect((await limits.check({ userId: 'u' })).allow).toBe(true);
  });

  it('uses the codes and sentences the site chose', async () => {
    const limits = limitsWith({
      maxStreams: 1,
      codes: { STREAM_LIMIT: '4031' },
      messages: { STREAM_LIMIT: 'One screen at a time.' },
    });
    await limits.check({ userId: 'u', streamId: 'a' });
    expect(await limits.check({ userId: 'u', streamId: 'b' })).toMatchObject({
      gateway: { error_code: '4031', error_message: 'One screen at a time.' },
      site: { reason: 'One screen at a time.' },
    });
  });
});

/** A store that never answers: a stalled Redis, without one. */
const stalled: SharedStore = new Proxy({} as SharedStore, {
  get: (_t, name) => (name === 'kind' ? 'redis' : () => new Promise(() => {})),
});

describe('limits when the store does not answer', () => {
  it('let the license through after the deadline and say so, when the site chose allow', async () => {
    const events: LimitsEvent[] = [];
    const limits = createLicenseLimits({
      store: stalled,
      maxStreams: 1,
      deadlineMs: 20,
      onEvent: (e) => events.push(e),
    });
    expect(await limits.check({ userId: 'u' })).toMatchObject({ allow: true, unchecked: true });
    expect(events).toEqual([
      {
        type: 'store-unavailable',
        decision: 'limits',
        cause: 'timeout',
        reason: 'no answer within 20 ms',
        outcome: 'allowed',
      },
    ]);
  });

  it('refuse it with their own code when the site chose refuse', async () => {
    const limits = createLicenseLimits({ store: stalled, deadlineMs: 20, onOutage: 'refuse' });
    expect(await limits.check({ userId: 'u' })).toMatchObject({
      allow: false,
      kind: 'LIMITS_UNAVAILABLE',
      gateway: { error_code: '6105' },
    });
  });
});

describe('limits options and asks', () => {
  it('refuse a bad option, code or ask with a sentence naming it', async () => {
    const error = (f: () => unknown) => {
      try {
        f();
      } catch (e) {
        return [(e as SiteKitError).code, (e as Error).message];
      }
      return undefined;
    };
    expect(error(() => createLicenseLimits({ maxStreams: -1 }))).toEqual([
      'INVALID_INPUT',
      'maxStreams: must be 0 or more',
    ]);
    expect(error(() => createLicenseLimits({ codes: { STREAM_LIMIT: '12' } }))).toEqual([
      'INVALID_INPUT',
      'codes.STREAM_LIMIT: must be 4 digits other than "0000" (both gateway answer formats must carry it), got "12".',
    ]);
    await expect(createLicenseLimits().check({ userId: '' })).rejects.toThrow(
      'userId: must be a string of 1 to 512 characters.',
    );
  });

  it('read the device ID of a client-meta header, and nothing of a broken one', () => {
    const meta = btoa(JSON.stringify({ device_id: 'abc', device_model: 'x' }));
    expect(deviceIdFromClientMeta(meta)).toBe('abc');
    expect(deviceIdFromClientMeta('%%%')).toBeUndefined();
    expect(deviceIdFromClientMeta(btoa('[1]'))).toBeUndefined();
    expect(deviceIdFromClientMeta(null)).toBeUndefined();
    expect(deviceIdFromClientMeta(btoa(JSON.stringify({ device_id: 'x'.repeat(513) })))).toBe(
      undefined,
    );
  });
});
