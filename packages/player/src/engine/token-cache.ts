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
  /** Tokens kept at most (a playlist of many titles): the oldest goes first. Default 32. */
  maxEntries?: number;
}

/**
 * Where a token handed out came from: reused, fetched for this caller, or a fetch already under
 * way; `proxy` in proxy mode, where the site's license proxy adds it and the page never holds one.
 */
export type TokenSource = 'cache' | 'network' | 'shared' | 'proxy';

export interface CachedToken {
  value: string;
  source: TokenSource;
}

/** Fetches one token; must reject promptly once `signal` aborts. */
export type Fetch = (signal: AbortSignal) => Promise<string>;

export interface TokenCache {
  /**
   * A reusable token for `key`, else the result of one shared fetch. With `signal`, this caller's
   * wait ends when it aborts, and the fetch itself once no caller waits for it any more (its late
   * token is dropped); without one, the caller waits for the fetch to settle. `fresh`: never the
   * cached token (a fetch under way is shared).
   */
  get(key: string, fetch: Fetch, signal?: AbortSignal, fresh?: boolean): Promise<CachedToken>;
  /**
   * Forgets `value` for `key` (a license server refused it); a newer token is kept, and so is any
   * token when `value` is `undefined` (the request carried none).
   */
  invalidate(key: string, value: string | undefined): void;
  /** Forgets every token and aborts every fetch under way; waiting callers reject with `reason`. */
  clear(reason: unknown): void;
  /** Tokens held. */
  readonly size: number;
  destroy(): void;
}

interface Flight {
  promise: Promise<string>;
  controller: AbortController;
  /**
   * Callers waiting; the fetch is aborted when the last of them leaves (a caller without a signal
   * never leaves: the fetch is never abandoned then).
   */
  waiters: number;
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
        if (flights.get(key) === flight) {
          // Newest last: the first key is the oldest token, dropped past maxEntries.
          entries.delete(key);
          entries.set(key, { value, fetchedAt });
          if (entries.size > (options.maxEntries ?? 32))
            entries.delete(entries.keys().next().value!);
          flights.delete(key);
        }
        return value;
      },
      (error: unknown) => {
        if (flights.get(key) === flight) flights.delete(key);
        throw error;
      },
    );
    const flight: Flight = { promise, controller, waiters: 0 };
    flights.set(key, flight);
    return flight;
  };

  const wait = (key: string, flight: Flight, signal: AbortSignal): Promise<string> => {
    flight.waiters++;
    return new Promise<string>((resolve, reject) => {
      const leave = () => {
        signal.removeEventListener('abort', onAbort);
        flight.waiters--;
      };
      const onAbort = () => {
        leave();
        reject(signal.reason);
        if (flight.waiters === 0 && flights.get(key) === flight) {
          flights.delete(key);
          flight.controller.abort(signal.reason);
        }
      };
      if (signal.aborted) return onAbort();
      signal.addEventListener('abort', onAbort, { once: true });
      flight.promise.finally(leave).then(resolve, reject);
    });
  };

  return {
    async get(key, fetch, signal = new AbortController().signal, fresh) {
      if (signal.aborted) throw signal.reason;
      const entry = entries.get(key);
      if (entry && !fresh && options.now() - entry.fetchedAt < reuseForMs) {
        return { value: entry.value, source: 'cache' };
      }
      const running = flights.get(key);
      const flight = running ?? start(key, fetch);
      return { value: await wait(key, flight, signal), source: running ? 'shared' : 'network' };
    },
    invalidate(key, value) {
      if (entries.get(key)?.value === value) entries.delete(key);
    },
    clear(reason) {
      const all = [...flights.values()];
      flights.clear();
      entries.clear();
      for (const flight of all) flight.controller.abort(reason);
    },
    get size() {
      return entries.size;
    },
    destroy() {
      this.clear(new LicenseAuthError('ABORTED', 'The license auth handle was detached.'));
    },
  };
}
