/** What a store call came to: its value, or why there is none (the store was slow or failed). */
export type StoreOutcome<T> =
  { ok: true; value: T } | { ok: false; cause: 'timeout' | 'error'; reason: string };

/** What a site chose for a decision the store cannot make: let the request through, or refuse it. */
export type OutagePolicy = 'allow' | 'refuse';

/** Reported whenever a decision was made without its store: which, why, and how it went. */
export interface StoreOutageEvent {
  type: 'store-unavailable';
  /** The decision that could not be made ('limits', 'rate-limit'). */
  decision: string;
  cause: 'timeout' | 'error';
  /** The error's class and sentence, or the deadline; never a key. */
  reason: string;
  outcome: 'allowed' | 'refused';
}

/**
 * Runs store calls with a deadline: a stalled store (a paused Redis holds the connection open and
 * answers nothing) costs at most `ms`, and its late answer or error is dropped.
 */
export function storeDeadline<T>(ms: number, work: () => Promise<T>): Promise<StoreOutcome<T>> {
  return new Promise((resolve) => {
    const timer = setTimeout(
      () => resolve({ ok: false, cause: 'timeout', reason: `no answer within ${ms} ms` }),
      ms,
    );
    let pending: Promise<T>;
    try {
      pending = work();
    } catch (error) {
      pending = Promise.reject(error);
    }
    pending.then(
      (value) => {
        clearTimeout(timer);
        resolve({ ok: true, value });
      },
      (error: unknown) => {
        clearTimeout(timer);
        resolve({ ok: false, cause: 'error', reason: reasonOf(error) });
      },
    );
  });
}

function reasonOf(error: unknown): string {
  if (error instanceof Error) return `${error.name}: ${error.message}`.slice(0, 200);
  return 'unknown error';
}
