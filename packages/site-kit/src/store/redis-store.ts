import {
  createClient,
  createCluster,
  type RedisClientOptions,
  type RedisClientType,
  type RedisClusterOptions,
  type RedisClusterType,
} from '@redis/client';
import { SiteKitError } from '../errors.ts';
import { storeScripts, type AdmitReply } from './redis-scripts.ts';
import type { SharedStore } from './store.ts';

/** One Redis server (`url`) or a Redis Cluster (`cluster`). */
export type RedisStoreOptions = RedisNodeStoreOptions | RedisClusterStoreOptions;

/** The store on one Redis server. */
export interface RedisNodeStoreOptions {
  /** `redis://[[user][:password]@]host[:port][/db]` (rediss:// for TLS). */
  url: string;
  /** Not with `url`. */
  cluster?: undefined;
  /**
   * More options of the client (TLS, credentials, a name); the store sets its own
   * `disableOfflineQueue` (a command while disconnected fails at once rather than waiting) and
   * `reconnectStrategy` unless given here.
   */
  client?: Omit<RedisClientOptions, 'url' | 'scripts'>;
  /** Reports the connection's ups and downs; never a password or a key. */
  onEvent?: (event: RedisStoreEvent) => void;
}

/** The store on a Redis Cluster. */
export interface RedisClusterStoreOptions {
  /** Not with `cluster`. */
  url?: undefined;
  /**
   * node-redis's cluster options: `rootNodes` (a few `{ url }` of the cluster, from which it learns
   * the rest), and `defaults` for every node's connection (credentials, TLS), where the store sets
   * its own `disableOfflineQueue` and `reconnectStrategy` unless given.
   */
  cluster: Omit<RedisClusterOptions, 'scripts' | 'modules' | 'functions'>;
  /** Reports the connection's ups and downs, per node; never a password or a key. */
  onEvent?: (event: RedisStoreEvent) => void;
}

/** `node`: the cluster node (host:port) it is about; none for one server or the whole cluster. */
export type RedisStoreEvent =
  | { type: 'redis-connected'; node?: string }
  | { type: 'redis-error'; reason: string; node?: string }
  | { type: 'redis-reconnecting'; attempt: number; node?: string };

/** The node-redis client the store made (one server, or a cluster): rate limits share it. */
export type StoreRedisClient = RedisClientType | RedisClusterType;

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

const socketDefaults = {
  connectTimeout: 1_000,
  // Quick at first, then at most every 2 s: a Redis back from an outage is used within 2 s.
  reconnectStrategy: (retries: number) => Math.min(50 * 2 ** retries, 2_000),
};

function makeClient(options: RedisNodeStoreOptions) {
  return createClient({
    disableOfflineQueue: true,
    ...options.client,
    url: options.url,
    socket: { ...socketDefaults, ...options.client?.socket },
    scripts: storeScripts,
  });
}

function makeCluster(options: RedisClusterStoreOptions) {
  const defaults = options.cluster.defaults;
  return createCluster({
    ...options.cluster,
    defaults: {
      disableOfflineQueue: true,
      ...defaults,
      socket: { ...socketDefaults, ...defaults?.socket },
    },
    scripts: storeScripts,
  });
}

/** What the store runs, the same on one server and on a cluster (each command routed by its key). */
type Commands = Pick<
  ReturnType<typeof makeClient>,
  'siteKitIncrement' | 'siteKitAdmit' | 'set' | 'get' | 'del' | 'zRem' | 'zRangeByScore'
>;

/** The connection's life: connect in the background, report its ups and downs, close. */
interface Connection {
  commands: Commands;
  client: StoreRedisClient;
  connected: Promise<void>;
  close(): void;
}

const isRedisUrl = (url: unknown) => typeof url === 'string' && /^rediss?:\/\//.test(url);

/**
 * Connects in the background: a site starts (and fails open or closed) while Redis is away. On a
 * cluster, one user's keys share a slot, so each of the store's steps (one key each) runs on the
 * node that holds it, scripts included.
 */
export function createRedisStore(options: RedisStoreOptions): RedisStore {
  const emit = (event: RedisStoreEvent) => {
    try {
      options.onEvent?.(event);
    } catch {
      // A logging failure is the listener's own concern.
    }
  };
  let connection: Connection;
  if (options?.cluster !== undefined) {
    const roots: unknown = options.cluster?.rootNodes;
    if (
      !Array.isArray(roots) ||
      roots.length === 0 ||
      !roots.every((node: { url?: unknown } | null) => isRedisUrl(node?.url))
    ) {
      throw new SiteKitError(
        'INVALID_INPUT',
        'cluster.rootNodes: must be one or more { url } with a redis:// or rediss:// URL, such as [{ url: "redis://10.0.0.1:6379" }].',
      );
    }
    connection = connectCluster(makeCluster(options), emit);
  } else {
    if (!isRedisUrl(options?.url)) {
      throw new SiteKitError(
        'INVALID_INPUT',
        'url: must be a redis:// or rediss:// URL, such as redis://127.0.0.1:6379 (or cluster: { rootNodes } for a Redis Cluster).',
      );
    }
    connection = connectNode(makeClient(options), emit);
  }
  const client = connection.commands;
  const connected = connection.connected;

  return {
    kind: 'redis',
    client: connection.client,
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
      connection.close();
      await connected;
    },
  };
}

function connectNode(
  client: ReturnType<typeof makeClient>,
  emit: (event: RedisStoreEvent) => void,
): Connection {
  let attempt = 0;
  // Without an 'error' listener node-redis would crash the process on a lost connection.
  client.on('error', (error: unknown) => emit({ type: 'redis-error', reason: reasonOf(error) }));
  client.on('reconnecting', () => emit({ type: 'redis-reconnecting', attempt: ++attempt }));
  client.on('ready', () => {
    attempt = 0;
    emit({ type: 'redis-connected' });
  });
  // The client retries a first connection by its reconnect strategy, as it does a lost one.
  const connected = client.connect().then(
    () => undefined,
    (error: unknown) => emit({ type: 'redis-error', reason: reasonOf(error) }),
  );
  return {
    commands: client,
    client: client as unknown as RedisClientType,
    connected,
    close() {
      // Also while it is still trying to connect: a Redis that never came up must not hold the exit.
      if (client.isOpen) client.destroy();
    },
  };
}

function connectCluster(
  cluster: ReturnType<typeof makeCluster>,
  emit: (event: RedisStoreEvent) => void,
): Connection {
  const attempts = new Map<string, number>();
  const nodeOf = (info: { host?: unknown; port?: unknown } | undefined) =>
    `${String(info?.host)}:${String(info?.port)}`;
  // Each node's connection reconnects by itself (the defaults' strategy); the cluster reports it.
  cluster.on('error', (error: unknown) => emit({ type: 'redis-error', reason: reasonOf(error) }));
  cluster.on('node-error', (error: unknown, info?: { host?: unknown; port?: unknown }) =>
    emit({ type: 'redis-error', reason: reasonOf(error), node: nodeOf(info) }),
  );
  cluster.on('node-reconnecting', (info?: { host?: unknown; port?: unknown }) => {
    const node = nodeOf(info);
    const attempt = (attempts.get(node) ?? 0) + 1;
    attempts.set(node, attempt);
    emit({ type: 'redis-reconnecting', attempt, node });
  });
  cluster.on('node-ready', (info?: { host?: unknown; port?: unknown }) => {
    const node = nodeOf(info);
    // A node's first connection is the cluster's; a node back from an outage is reported.
    if (attempts.delete(node)) emit({ type: 'redis-connected', node });
  });
  // node-redis gives up on a cluster whose root nodes did not answer its first discovery: the
  // store asks again, on the same schedule as a lost connection, until it connects or is closed.
  let closed = false;
  let wake: (() => void) | undefined;
  const connected = (async () => {
    for (let retry = 0; !closed; retry++) {
      try {
        await cluster.connect();
        if (closed) return cluster.destroy();
        // A cluster still being made answers with some of its slots, or none: asked again later.
        const served = countServed(cluster.slots);
        if (served === SLOTS) return emit({ type: 'redis-connected' });
        cluster.destroy();
        throw new Error(`the cluster serves ${served} of its ${SLOTS} slots`);
      } catch (error) {
        if (closed) return;
        emit({ type: 'redis-error', reason: reasonOf(error) });
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, socketDefaults.reconnectStrategy(retry));
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      if (!closed) emit({ type: 'redis-reconnecting', attempt: retry + 1 });
    }
  })();
  return {
    commands: cluster as unknown as Commands,
    client: cluster as unknown as RedisClusterType,
    connected,
    close() {
      closed = true;
      wake?.();
      if (cluster.isOpen) cluster.destroy();
    },
  };
}

const SLOTS = 16_384;

function countServed(slots: ArrayLike<unknown>): number {
  let served = 0;
  for (let i = 0; i < SLOTS; i++) if (slots[i] !== undefined) served++;
  return served;
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
