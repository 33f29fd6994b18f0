import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import type { IRateLimiterRedisOptions, RateLimiterAbstract } from 'rate-limiter-flexible';
import * as z from 'zod';
import { SiteKitError } from '../errors.ts';
import { describeIssues } from '../schemas/issues.ts';
import { mustBe } from '../schemas/must-be.ts';
import { faultOptions } from '../store/fault-options.ts';
import { storeDeadline, type OutagePolicy, type StoreOutageEvent } from '../store/deadline.ts';
import type { RedisStore } from '../store/redis-store.ts';
import { deviceKey, userKey, type SharedStore } from '../store/store.ts';
import type { RateVerdict, SiteRateLimit } from './verdict.ts';

/** So many requests per so many seconds. */
export interface RateBudget {
  points: number;
  seconds: number;
}

/** Options of {@link createRateLimit}: the store, the budgets, the address, the outage policy. */
export interface RateLimitOptions {
  /** Default one process's memory; a Redis store's connection for many servers. */
  store?: SharedStore;
  /** Per client address; default 120 a minute; false: none. */
  perAddress?: RateBudget | false;
  /** Per user (the grant's user ID); default 60 a minute; false: none. */
  perUser?: RateBudget | false;
  /**
   * The client's address. Default: the socket's peer address under node:http (behind a reverse
   * proxy, read the proxy's header here); elsewhere, give it (e.g. a platform's client IP header):
   * a request whose address is not known is not counted per address.
   */
  clientAddress?: (request: Request) => string | undefined;
  /** How long a decision may wait for the store; default 250 ms. */
  deadlineMs?: number;
  /** Past the deadline or on a store error: let the request through (default) or answer 503. */
  onOutage?: OutagePolicy;
  /** Before every key; default "multidrm:". */
  keyPrefix?: string;
  /** Decisions made without the store, for logs and metrics. */
  onEvent?: (event: StoreOutageEvent) => void;
}

const budget = z.union(
  [
    z.literal(false),
    z.strictObject({
      points: z.number().int('must be a whole number').positive('must be more than 0'),
      seconds: z.number().int('must be a whole number').positive('must be more than 0'),
    }),
  ],
  { error: mustBe('false or { points, seconds } (whole numbers above 0)') },
);

const optionsSchema = z.object({
  perAddress: budget.optional(),
  perUser: budget.optional(),
  ...faultOptions,
  keyPrefix: z.string({ error: mustBe('a string') }).optional(),
});

/**
 * Rate limits for the site's endpoints, counted by rate-limiter-flexible (fixed windows) in memory
 * or on the Redis store's own connection. Answers follow the IETF draft "RateLimit header fields
 * for HTTP": `RateLimit-Policy` (quota q, window w) and `RateLimit` (remaining r, reset in t s),
 * and a 429 carries `Retry-After`.
 */
export function createRateLimit(options: RateLimitOptions = {}): SiteRateLimit {
  const parsed = optionsSchema.safeParse(options);
  if (!parsed.success) throw new SiteKitError('INVALID_INPUT', describeIssues(parsed.error, ''));
  const o = parsed.data;
  const prefix = o.keyPrefix ?? 'multidrm:';
  const deadlineMs = o.deadlineMs ?? 250;
  const onOutage = o.onOutage ?? 'allow';
  const store = options.store;
  const redis = store?.kind === 'redis' ? (store as RedisStore).client : undefined;
  if (store?.kind === 'redis' && redis === undefined) {
    throw new SiteKitError('INVALID_INPUT', 'store: a Redis store made by createRedisStore.');
  }
  const limiter = (name: string, b: RateBudget | false | undefined, fallback: RateBudget) => {
    if (b === false) return undefined;
    const { points, seconds } = b ?? fallback;
    const common = { points, duration: seconds, keyPrefix: `${prefix}rl:${name}` };
    const made: RateLimiterAbstract =
      redis === undefined
        ? new RateLimiterMemory(common)
        : new ScriptedRateLimiterRedis(
            { ...common, storeClient: redis, useRedisPackage: true, rejectIfRedisNotReady: true },
            redis as unknown as ScriptedClient,
          );
    return { made, name, points, seconds, policy: `"${name}";q=${points};w=${seconds}` };
  };
  const perAddress = limiter('address', o.perAddress, { points: 120, seconds: 60 });
  const perUser = limiter('user', o.perUser, { points: 60, seconds: 60 });
  const clientAddress = options.clientAddress;
  const emit = (event: StoreOutageEvent) => {
    try {
      options.onEvent?.(event);
    } catch {
      // A logging failure is the listener's own concern.
    }
  };

  async function consume(
    limit: NonNullable<ReturnType<typeof limiter>>,
    key: string,
  ): Promise<RateVerdict> {
    const counted = () =>
      limit.made.consume(key).then(
        (res) => ({ over: false, res }),
        (rejected: unknown) => {
          // Over the budget it rejects with its result; a store failure is an Error.
          if (rejected instanceof RateLimiterRes) return { over: true, res: rejected };
          throw rejected;
        },
      );
    // Memory cannot stall: no timer for it.
    const outcome =
      redis === undefined
        ? { ok: true as const, value: await counted() }
        : await storeDeadline(deadlineMs, counted);
    const policy = limit.policy;
    if (!outcome.ok) {
      const refused = onOutage === 'refuse';
      emit({
        type: 'store-unavailable',
        decision: 'rate-limit',
        cause: outcome.cause,
        reason: outcome.reason,
        outcome: refused ? 'refused' : 'allowed',
      });
      if (!refused) return { ok: true, headers: {} };
      return {
        ok: false,
        status: 503,
        message: 'The site cannot count requests right now; try again in a moment.',
        headers: { 'retry-after': '1' },
      };
    }
    const { over, res } = outcome.value;
    const reset = Math.max(1, Math.ceil(res.msBeforeNext / 1000));
    const headers = {
      'ratelimit-policy': policy,
      ratelimit: `"${limit.name}";r=${Math.max(0, res.remainingPoints)};t=${reset}`,
    };
    if (!over) return { ok: true, headers };
    return {
      ok: false,
      status: 429,
      message: `Too many requests; try again in ${reset} s.`,
      headers: { ...headers, 'retry-after': String(reset) },
    };
  }

  const pass: RateVerdict = { ok: true, headers: {} };
  return {
    byAddress(request, peer) {
      if (perAddress === undefined) return Promise.resolve(pass);
      const address = clientAddress === undefined ? peer : addressOf(clientAddress, request);
      // Not known (a web runtime, and no clientAddress): not counted, rather than every client in
      // one budget.
      if (address === undefined || address === '') return Promise.resolve(pass);
      // The address's own slot, as a device's: an address is no one user's.
      return consume(perAddress, deviceKey('', address, 'a'));
    },
    byUser(userId) {
      if (perUser === undefined) return Promise.resolve(pass);
      // In the user's slot, beside their streams and devices.
      return consume(perUser, userKey('', userId, 'u'));
    },
  };
}

/** The store's client with its registered scripts (createRedisStore registers them). */
interface ScriptedClient {
  readonly isReady: boolean;
  siteKitRateCount(key: string, points: number, seconds: number): Promise<[number, number]>;
}

type Upsert = (
  rlKey: string,
  points: number,
  msDuration: number,
  forceExpire?: boolean,
  options?: object,
) => Promise<unknown>;

/**
 * RateLimiterRedis counting with the store's registered copy of its script, sent as EVALSHA: the
 * library sends the whole script with EVAL on every request, and a token request with both budgets
 * sent it twice. `_upsert` is the step the library's README names for a store of one's own (it
 * returns the raw reply its `_getRateLimiterRes` reads); whatever else it does (a forced expiry, a
 * window under a second, points that are not a whole number) stays the library's.
 */
class ScriptedRateLimiterRedis extends RateLimiterRedis {
  readonly #client: ScriptedClient;

  constructor(options: IRateLimiterRedisOptions, client: ScriptedClient) {
    super(options);
    this.#client = client;
  }

  async _upsert(
    rlKey: string,
    points: number,
    msDuration: number,
    forceExpire = false,
    options?: object,
  ): Promise<unknown> {
    const seconds = Math.floor(msDuration / 1000);
    if (forceExpire || seconds <= 0 || !Number.isSafeInteger(points)) {
      const libraryUpsert = (RateLimiterRedis.prototype as unknown as { _upsert: Upsert })._upsert;
      return libraryUpsert.call(this, rlKey, points, msDuration, forceExpire, options);
    }
    // As the library's rejectIfRedisNotReady: no command queued for a connection that is not up.
    if (!this.#client.isReady) throw new Error('Redis connection is not ready');
    return this.#client.siteKitRateCount(rlKey, points, seconds);
  }
}

// The site's reading of the address; one that throws counts as none (the request is still served).
function addressOf(
  read: (request: Request) => string | undefined,
  request: () => Request,
): string | undefined {
  try {
    const address = read(request());
    return typeof address === 'string' ? address.slice(0, 256) : undefined;
  } catch {
    return undefined;
  }
}
