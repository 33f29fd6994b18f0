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
};
