import { SiteKitError } from '../errors.ts';

/** How long a site's `authorize` may take by default before the request is answered without it. */
export const DEFAULT_AUTHORIZE_TIMEOUT_MS = 5_000;

/** The longest deadline a timer can hold (setTimeout's own limit, about 24.8 days). */
const MAX_TIMEOUT_MS = 2 ** 31 - 1;

export function checkTimeoutMs(value: unknown, name: string): number {
  if (value === undefined) return DEFAULT_AUTHORIZE_TIMEOUT_MS;
  if (
    typeof value !== 'number' ||
    !Number.isInteger(value) ||
    value < 1 ||
    value > MAX_TIMEOUT_MS
  ) {
    throw new SiteKitError(
      'INVALID_INPUT',
      `${name}: must be a whole number of milliseconds from 1 to ${MAX_TIMEOUT_MS}.`,
    );
  }
  return value;
}

export type Deadlined<T> =
  | { ok: true; value: T }
  | { ok: false; timedOut: false; error: unknown }
  | { ok: false; timedOut: true };

/** What the work gets: `signal` aborts at the deadline. */
export interface DeadlineContext {
  readonly signal: AbortSignal;
}

/**
 * Runs `work` with a deadline. At the deadline the caller gets `timedOut` and the work's signal is
 * aborted, so that a site can stop what it started; the work's late result or error is dropped (it
 * is handled, so it never becomes an unhandled rejection). The timer never outlives the call.
 *
 * A result given at once (not a promise nor any thenable) is the outcome at once: no deadline can
 * pass before it, so no timer is set. The signal is made when the work first reads it: most sites
 * decide from a session without it, and an AbortController, a timer and a race cost a token request
 * more than its crypto.
 */
export function withDeadline<T>(
  timeoutMs: number,
  work: (context: DeadlineContext) => T | PromiseLike<T>,
): Deadlined<T> | Promise<Deadlined<T>> {
  let controller: AbortController | undefined;
  let expired = false;
  const context: DeadlineContext = {
    get signal() {
      if (controller === undefined) {
        controller = new AbortController();
        // Read for the first time after the deadline: it is aborted already.
        if (expired) controller.abort(deadlineReason(timeoutMs));
      }
      return controller.signal;
    },
  };
  let result: T | PromiseLike<T>;
  try {
    result = work(context);
  } catch (error) {
    return { ok: false, timedOut: false, error };
  }
  if (!isThenable(result)) return { ok: true, value: result };
  return race(result, timeoutMs, () => {
    expired = true;
    controller?.abort(deadlineReason(timeoutMs));
  });
}

async function race<T>(
  work: PromiseLike<T>,
  timeoutMs: number,
  expire: () => void,
): Promise<Deadlined<T>> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expired = new Promise<Deadlined<T>>((resolve) => {
    timer = setTimeout(() => resolve({ ok: false, timedOut: true }), timeoutMs);
  });
  const done = (async (): Promise<Deadlined<T>> => {
    try {
      return { ok: true, value: await work };
    } catch (error) {
      return { ok: false, timedOut: false, error };
    }
  })();
  try {
    const outcome = await Promise.race([done, expired]);
    if (!outcome.ok && outcome.timedOut) expire();
    return outcome;
  } finally {
    clearTimeout(timer);
  }
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (
    (typeof value === 'object' || typeof value === 'function') &&
    value !== null &&
    typeof (value as { then?: unknown }).then === 'function'
  );
}

// The reason a timed-out AbortSignal carries on the web platform (as AbortSignal.timeout's).
function deadlineReason(timeoutMs: number): DOMException {
  return new DOMException(`authorize did not decide within ${timeoutMs} ms.`, 'TimeoutError');
}
