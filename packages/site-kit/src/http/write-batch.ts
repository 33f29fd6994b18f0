/**
 * Runs `write` (a whole answer's writeHead + end) with the other answers that became ready in the same
 * event-loop turn; resolves once it ran, rejects with what it threw.
 */
export type WriteBatch = (write: () => void) => Promise<void>;

/**
 * Writes answers together, once the event loop has run every request it read in this turn, rather
 * than each as soon as it is ready. On a loaded server a socket write is not only its own syscall: it
 * wakes the client, and its kernel work evicts the caches the next request's JavaScript runs in. With
 * the writes interleaved, a license cost the emulator's server 88 µs of user CPU; batched, 53 µs
 * (128 connections on loopback, `pnpm bench emulator/bench/http`). A request alone waits one turn
 * (setImmediate): a few microseconds. One batch per server: its writes run in the check phase after
 * the poll that read them.
 */
export function createWriteBatch(): WriteBatch {
  const later = createTurnQueue();
  return (write) =>
    new Promise<void>((resolve, reject) => {
      later(() => {
        // One write that throws fails its own answer, not the others of the batch.
        try {
          write();
          resolve();
        } catch (error) {
          reject(error);
        }
      });
    });
}

/**
 * The queue under a write batch, without a promise per write: `run` runs with the others queued in
 * the same event-loop turn, in order, in the check phase after it. A `run` must not throw (it would
 * stop the ones after it): it catches what its write throws.
 */
export function createTurnQueue(): (run: () => void) => void {
  let pending: (() => void)[] = [];
  const flush = () => {
    const now = pending;
    pending = [];
    for (const run of now) run();
  };
  return (run) => {
    if (pending.length === 0) setImmediate(flush);
    pending.push(run);
  };
}
