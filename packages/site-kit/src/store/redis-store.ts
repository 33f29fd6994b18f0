import { createClient, type RedisClientOptions, type RedisClientType } from '@redis/client';
import { SiteKitError } from '../errors.ts';
import { storeScripts, type AdmitReply } from './redis-scripts.ts';
import type { SharedStore } from './store.ts';

export interface RedisStoreOptions {
  /** `redis://[[user][:password]@]host[:port][/db]` (rediss:// for TLS). */
  url: string;
  /**
   * More options of the client (TLS, credentials, a name); the store sets its own
   * `disableOfflineQueue` (a command while disconnected fails at once rather than waiting) and
   * `reconnectStrategy` unless given here.
   */
  client?: Omit<RedisClientOptions, 'url' | 'scripts'>;
  /** Reports the connection's ups and downs; never a password or a key. */
  onEvent?: (event: RedisStoreEvent) => void;
}

export type RedisStoreEvent =
  | { type: 'redis-connected' }
  | { type: 'redis-error'; reason: string }
  | { type: 'redis-reconnecting'; attempt: number };

/** The node-redis client the store made: rate limits share its connection. */
export type StoreRedisClient = RedisClientType;

/** A SharedStore on Redis, for many servers: what it holds, every server of the site sees. */
export interface RedisStore extends SharedStore {
  readonly kind: 'redis';
  readonly client: StoreRedisClient;
  /**
   * Resolves once connected, or once closed before it ever connected; until then decisions take the
   * outage policy (it reconnects by itself after an outage, with no restart).
   */
  ready(): Promise<void>;
}

function makeClient(options: RedisStoreOptions) {
  return createClient({
    disableOfflineQueue: true,
    ...options.client,
    url: options.url,
    socket: {
      connectTimeout: 1_000,
      // Quick at first, then at most every 2 s: a Redis back from an outage is used within 2 s.
      reconnectStrategy: (retries: number) => Math.min(50 * 2 ** retries, 2_000),
      ...options.client?.socket,
    },
    scripts: storeScripts,
  });
}

/** Connects in the background: a site starts (and fails open or closed) while Redis is away. */
export function createRedisStore(options: RedisStoreOptions): RedisStore {
  if (typeof options?.url !== 'string' || !/^rediss?:\/\//.test(options.url)) {
    throw new SiteKitError(
      'INVALID_INPUT',
      'url: must be a redis:// or rediss:// URL, such as redis://127.0.0.1:6379.',
    );
  }
  const emit = (event: RedisStoreEvent) => {
    try {
      options.onEvent?.(event);
    } catch {
      // A logging failure is the listener's own concern.
    }
  };
  const client = makeClient(options);
  let attempt = 0;
  // Without an 'error' listener node-redis would crash the process on a lost connection.
  client.on('error', (error: unknown) => emit({ type: 'redis-error', reason: reasonOf(error) }));
  client.on('reconnecting', () => emit({ type: 'redis-reconnecting', attempt: ++attempt }));
  client.on('ready', () => {
    attempt = 0;
    emit({ type: 'redis-connected' });
  });
  const connected = client.connect().then(
    () => undefined,
    (error: unknown) => emit({ type: 'redis-error', reason: reasonOf(error) }),
  );

  return {
    kind: 'redis',
    client: client as unknown as StoreRedisClient,
    ready: () => connected,
    async increment(key, ttlMs) {
      return Number(await client.siteKitIncrement(key, Math.max(1, Math.ceil(ttlMs))));
    },
    async setIfAbsent(key, value, ttlMs) {
      const set = await client.set(key, value, { condition: 'NX', ...expiration(ttlMs) });
      return set !== null;
    },
    async set(key, value, ttlMs) {
      await client.set(key, value, expiration(ttlMs));
    },
    async get(key) {
      const value = await client.get(key);
      return value === null ? undefined : String(value);
    },
    async delete(key) {
      return (await client.del(key)) > 0;
    },
    async admit(key, member, rule) {
      const reply = await client.siteKitAdmit(
        key,
        member,
        rule.nowMs,
        rule.untilMs,
        rule.limit,
        rule.evict,
      );
      const [admitted, renewed, count, evicted] = reply as unknown as AdmitReply;
      return {
        admitted: admitted === 1,
        renewed: renewed === 1,
        count: Number(count),
        evicted: evicted.map(String),
      };
    },
    async remove(key, member) {
      return (await client.zRem(key, member)) > 0;
    },
    async members(key, nowMs) {
      return (await client.zRangeByScore(key, `(${nowMs}`, '+inf')).map(String);
    },
    async close() {
      // Also while it is still trying to connect: a Redis that never came up must not hold the exit.
      if (client.isOpen) client.destroy();
      await connected;
    },
  };
}

// No expiry: kept until deleted.
function expiration(ttlMs: number | undefined): { expiration?: { type: 'PX'; value: number } } {
  return ttlMs === undefined
    ? {}
    : { expiration: { type: 'PX', value: Math.max(1, Math.ceil(ttlMs)) } };
}

// The class and the sentence of a connection error; node-redis's messages hold no password.
function reasonOf(error: unknown): string {
  if (error instanceof Error) return `${error.name}: ${error.message}`.slice(0, 200);
  return 'unknown error';
}
