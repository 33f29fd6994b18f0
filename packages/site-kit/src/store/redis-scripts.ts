import { defineScript } from '@redis/client';
import type { CommandParser } from '@redis/client';

// The time-scored set's one atomic step (SharedStore.admit). Scores are expiry times; the key lives
// as long as its last member. Members that expire together leave in name order, as ZRANGE gives.
const ADMIT = `
local key, member = KEYS[1], ARGV[1]
local now, untilMs, limit = tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
redis.call('ZREMRANGEBYSCORE', key, '-inf', now)
local renewed = redis.call('ZSCORE', key, member) ~= false
local evicted = {}
if not renewed and limit > 0 then
  local count = redis.call('ZCARD', key)
  if count >= limit then
    if ARGV[5] ~= 'oldest' then return {0, 0, count, evicted} end
    evicted = redis.call('ZRANGE', key, 0, count - limit)
    redis.call('ZREMRANGEBYRANK', key, 0, count - limit)
  end
end
redis.call('ZADD', key, untilMs, member)
local last = redis.call('ZRANGE', key, -1, -1, 'WITHSCORES')
redis.call('PEXPIRE', key, math.max(1, tonumber(last[2]) - now))
return {1, renewed and 1 or 0, redis.call('ZCARD', key), evicted}
`;

// INCR and the expiry of a new counter in one step: a crash between the two never leaves a
// counter that lives for ever.
const INCREMENT = `
local n = redis.call('INCR', KEYS[1])
if n == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return n
`;

// A fixed window of rate-limiter-flexible's RateLimiterRedis, the same steps on the same keys (its
// own script): the window starts with the first request, and the reply is the points consumed and
// the milliseconds left. Registered here, it goes as EVALSHA (40 bytes) where the library sends the
// whole script with EVAL on every request.
const RATE_COUNT = `
redis.call('set', KEYS[1], 0, 'EX', ARGV[2], 'NX')
local consumed = redis.call('incrby', KEYS[1], ARGV[1])
local ttl = redis.call('pttl', KEYS[1])
if ttl == -1 then
  redis.call('expire', KEYS[1], ARGV[2])
  ttl = 1000 * ARGV[2]
end
return {consumed, ttl}
`;

/** The raw reply of ADMIT: admitted, renewed, count, evicted. */
export type AdmitReply = [number, number, number, string[]];

/** The scripts, registered on the client: it sends EVALSHA and falls back to EVAL on NOSCRIPT. */
export const storeScripts = {
  siteKitAdmit: defineScript({
    SCRIPT: ADMIT,
    NUMBER_OF_KEYS: 1,
    parseCommand(
      parser: CommandParser,
      key: string,
      member: string,
      nowMs: number,
      untilMs: number,
      limit: number,
      evict: string,
    ) {
      parser.pushKey(key);
      parser.push(member, String(nowMs), String(untilMs), String(limit), evict);
    },
    transformReply: (reply: unknown) => reply as AdmitReply,
  }),
  siteKitIncrement: defineScript({
    SCRIPT: INCREMENT,
    NUMBER_OF_KEYS: 1,
    parseCommand(parser: CommandParser, key: string, ttlMs: number) {
      parser.pushKey(key);
      parser.push(String(ttlMs));
    },
    transformReply: (reply: unknown) => reply as number,
  }),
  siteKitRateCount: defineScript({
    SCRIPT: RATE_COUNT,
    NUMBER_OF_KEYS: 1,
    parseCommand(parser: CommandParser, key: string, points: number, seconds: number) {
      parser.pushKey(key);
      parser.push(String(points), String(seconds));
    },
    transformReply: (reply: unknown) => reply as [number, number],
  }),
};
