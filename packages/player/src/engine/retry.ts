/**
 * Retry as data, for the site's endpoint and the license requests an adapter sends itself: which
 * answers are worth another try, and how long to wait.
 */
export interface RetryPolicy {
  /** Attempts in all, the first included. */
  maxAttempts: number;
  baseDelayMs: number;
  backoffFactor: number;
  maxDelayMs: number;
  /** HTTP statuses that are retried; an answer that never arrived (network) is always retried. */
  retryOnStatus: readonly number[];
  /**
   * The site's endpoint, for a load's first token: attempts go on past `maxAttempts` while their
   * waits add up to no more than this (a blip of the site at start does not fail the load);
   * `tokenTimeoutMs` still ends them.
   */
  windowMs: number;
  /**
   * The same for the token of every later license request of a load (a key rotation, a renewal),
   * where an error ends playback that is running: its token deadline is `tokenTimeoutMs` plus this.
   */
  renewalWindowMs: number;
}

/**
 * The defaults under the `retry` option (a given one is merged over them): 2 attempts in all, waits
 * from 250 ms doubling up to 2 s, on no answer or HTTP 408, 429, 500, 502, 503, 504; the site's
 * endpoint is tried on within 3 s of waits for a load's first token (attempts at 0, 0.25, 0.75,
 * 1.75 s), within 45 s for a renewal's or a key rotation's (then every 2 s).
 */
export const DEFAULT_RETRY: RetryPolicy = {
  maxAttempts: 2,
  baseDelayMs: 250,
  backoffFactor: 2,
  maxDelayMs: 2000,
  retryOnStatus: [408, 429, 500, 502, 503, 504],
  windowMs: 3000,
  renewalWindowMs: 45_000,
};

/**
 * The wait before the next attempt after the `failures`-th failed one, or `undefined` when none is
 * left or `status` is not retried (`undefined` status: no answer arrived). Past `maxAttempts`, an
 * attempt is left while `waited` (the waits so far) plus its wait stays within `windowMs`.
 */
export function retryWait(
  retry: RetryPolicy,
  failures: number,
  status?: number,
  waited = 0,
  windowMs = 0,
): number | undefined {
  if (status !== undefined && !retry.retryOnStatus.includes(status)) return undefined;
  const wait = Math.min(
    retry.baseDelayMs * retry.backoffFactor ** (failures - 1),
    retry.maxDelayMs,
  );
  return failures < retry.maxAttempts || waited + wait <= windowMs ? wait : undefined;
}

export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(resolve, ms);
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        reject(signal.reason);
      },
      { once: true },
    );
  });
}

/**
 * Runs `work` under a deadline: its signal aborts after `ms` with `timeout()`, or with `parent`'s
 * reason, and the promise settles then even if the work ignores the signal. `race` gives a wait
 * inside the work the same end without aborting what it waits for (a token fetch other requests
 * share). Work whose signal is aborted before it starts is not started.
 */
export function withDeadline<T>(
  ms: number,
  timeout: () => unknown,
  parent: AbortSignal,
  work: (signal: AbortSignal, race: <U>(wait: Promise<U>) => Promise<U>) => Promise<T>,
): Promise<T> {
  const controller = new AbortController();
  const { signal } = controller;
  const onParentAbort = () => controller.abort(parent.reason);
  parent.addEventListener('abort', onParentAbort, { once: true });
  if (parent.aborted) onParentAbort();
  const timer = setTimeout(() => controller.abort(timeout()), ms);
  const aborted = new Promise<never>((_, reject) => {
    if (signal.aborted) reject(signal.reason);
    signal.addEventListener('abort', () => reject(signal.reason), { once: true });
  });
  aborted.catch(() => undefined);
  const race = <U>(wait: Promise<U>) => Promise.race([wait, aborted]);
  return (signal.aborted ? aborted : race(work(signal, race))).finally(() => {
    clearTimeout(timer);
    parent.removeEventListener('abort', onParentAbort);
  });
}
