/**
 * `@multidrm/site-kit/redis`: the shared store on Redis, for a site on many servers. Needs the
 * optional peer dependency `@redis/client` (node-redis).
 */
export {
  createRedisStore,
  type RedisStore,
  type RedisStoreEvent,
  type RedisClusterStoreOptions,
  type RedisNodeStoreOptions,
  type RedisStoreOptions,
  type StoreRedisClient,
} from './store/redis-store.ts';
