import { LicenseAuthError } from './errors.ts';

export interface TokenCacheOptions {
  /**
   * How long a token is valid (the service: a window after its timestamp), counted from the start
   * of its fetch: the site stamps it at some moment before it arrives, so that is the safe bound.
   */
  lifetimeMs: number;
  /** A cached token is reused only while at least this much of its life is left. */
  minRemainingMs: number;
  /** Monotonic milliseconds; wall-clock jumps must not make a token look younger. */
  now: () => number;
}

/** Where a token handed out came from: reused, fetched for this caller, or a fetch already under way. */
export type TokenSource = 'cache' | 'network' | 'shared';

export interface CachedToken {
  value: string;
  source: TokenSource;
}

/** Fetches one token; must reject promptly once `signal` aborts. */
export type Fetch = (signal: AbortSignal) => Promise<string>;

export interface TokenCache {
  /** A reusable token for `key`, else the result of one shared fetch. */
  get(key: string, fetch: Fetch): Promise<CachedToken>;
  /** Forgets `value` for `key` (a license server refused it); a newer token is kept. */
  invalidate(key: string, value: string): void;
  /** Aborts every fetch under way; waiting callers reject with `reason`. Cached tokens stay. */
  abortAll(reason: unknown): void;
  destroy(): void;
}

interface Flight {
  promise: Promise<string>;
  controller: AbortController;
}

export function createTokenCache(options: TokenCacheOptions): TokenCache {
  const entries = new Map<string, { value: string; fetchedAt: number }>();
  const flights = new Map<string, Flight>();
  const reuseForMs = options.lifetimeMs - options.minRemainingMs;

  const start = (key: string, fetch: Fetch): Flight => {
    const controller = new AbortController();
    const fetchedAt = options.now();
    // `fetch` must settle when its signal aborts (withTokenDeadline guarantees it for any token source).
    const promise = fetch(controller.signal).then(
      (value) => {
        if (flights.get(key)?.controller === controller) {
          entries.set(key, { value, fetchedAt });
          flights.delete(key);
        }
        return value;
      },
      (error: unknown) => {
        if (flights.get(key)?.controller === controller) flights.delete(key);
        throw error;
      },
    );
    const flight = { promise, controller };
    flights.set(key, flight);
    return flight;
  };

  return {
    async get(key, fetch) {
      const entry = entries.get(key);
      if (entry && options.now() - entry.fetchedAt < reuseForMs) {
        return { value: entry.value, source: 'cache' };
      }
      const running = flights.get(key);
      if (running) return { value: await running.promise, source: 'shared' };
      return { value: await start(key, fetch).promise, source: 'network' };
    },
    invalidate(key, value) {
      if (entries.get(key)?.value === value) entries.delete(key);
    },
    abortAll(reason) {
      const all = [...flights.values()];
      flights.clear();
      for (const flight of all) flight.controller.abort(reason);
    },
    destroy() {
      this.abortAll(new LicenseAuthError('ABORTED', 'The license auth handle was detached.'));
      entries.clear();
    },
  };
}
