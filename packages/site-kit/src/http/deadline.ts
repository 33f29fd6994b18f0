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

/**
 * Runs `work` with a deadline. At the deadline the caller gets `timedOut` and the work's signal is
 * aborted, so that a site can stop what it started; the work's late result or error is dropped (it
 * is handled, so it never becomes an unhandled rejection). The timer never outlives the call.
 */
export async function withDeadline<T>(
  timeoutMs: number,
  work: (signal: AbortSignal) => T | Promise<T>,
): Promise<Deadlined<T>> {
  const controller = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expired = new Promise<Deadlined<T>>((resolve) => {
    timer = setTimeout(() => resolve({ ok: false, timedOut: true }), timeoutMs);
  });
  const done = (async (): Promise<Deadlined<T>> => {
    try {
      return { ok: true, value: await work(controller.signal) };
    } catch (error) {
      return { ok: false, timedOut: false, error };
    }
  })();
  try {
    const outcome = await Promise.race([done, expired]);
    if (!outcome.ok && outcome.timedOut) controller.abort(deadlineReason(timeoutMs));
    return outcome;
  } finally {
    clearTimeout(timer);
  }
}

// The reason a timed-out AbortSignal carries on the web platform (as AbortSignal.timeout's).
function deadlineReason(timeoutMs: number): DOMException {
  return new DOMException(`authorize did not decide within ${timeoutMs} ms.`, 'TimeoutError');
}
