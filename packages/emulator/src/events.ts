/**
 * The flow of each license request as typed events: what `events` of a running emulator yields and
 * what `GET /events` streams. Events carry IDs, names, codes and timings, never a token, custom data,
 * site key, access key or content key (key IDs are public: they are in the content's manifest).
 */
interface FlowBase {
  /** Ties together the events of one license request; also sent as header `x-drm-request-id`. */
  requestId: string;
  /** When the event happened, ISO 8601. */
  at: string;
  /** Milliseconds since the license request arrived. */
  elapsedMs: number;
}

/**
 * `errorCode` is the code as the client got it (the service dialect: the service's code, digits; the
 * explain dialect: the named reason) and `reason` the emulator's named reason, side by side: what a
 * client of the real service would see, and why.
 */
export type FlowEvent = FlowBase &
  (
    | { type: 'license-request'; origin?: string; kids: string[]; streamId?: string }
    | {
        type: 'token-checked';
        ok: boolean;
        siteId?: string;
        userId?: string;
        cid?: string;
        drmType?: string;
        version?: 1 | 2;
        responseFormat?: string;
        errorCode?: string;
        reason?: string;
        warnings?: string[];
      }
    | {
        type: 'callback-sent';
        siteId: string;
        /** The gateway's origin and path; the query is left out in case it holds a secret. */
        gatewayUrl: string;
        format: 'json' | 'xml';
        userId: string;
        cid: string;
        drmType: string;
      }
    | {
        type: 'callback-answered';
        ok: boolean;
        durationMs: number;
        httpStatus?: number;
        /** The site's own error_code / ERROR when it answered one. */
        siteErrorCode?: string;
        errorCode?: string;
        reason?: string;
        /** Something the answer got wrong that did not stop it (a refusal without nonce). */
        warning?: string;
      }
    | {
        type: 'license-issued';
        mode: 'token' | 'gateway';
        siteId: string;
        userId: string;
        cid: string;
        kids: string[];
        licenseType: 'temporary' | 'persistent-license';
        responseFormat: string;
        policy: unknown;
        stream: { id: string; renewal: boolean; activeStreams: number; countsForSeconds: number };
      }
    | {
        /** A fault of the emulator's faults applied to this request (see the README's Faults). */
        type: 'fault-injected';
        fault: string;
        /** Where in the flow it struck: arrival, authorize, token, custom-data, new-stream, renewal. */
        stage: string;
        /** How many more requests it applies to; absent when it applies to every one. */
        remaining?: number;
        /** What it was set with beyond its name (ms, status, siteCode, message, reason). */
        parameters: Record<string, unknown>;
      }
    | {
        type: 'license-denied';
        /** The HTTP status answered: 200 for a refusal in the service dialect. */
        status: number;
        /** The code as the client got it: the service code (service dialect), else the reason. */
        errorCode: string;
        reason: string;
        /** What the client got as `message`. */
        message: string;
        /** The full explanation. */
        detail: string;
        field?: string;
        fix?: string;
        /** Facts the client is not told (e.g. the step at which custom data failed to open). */
        facts?: Record<string, unknown>;
      }
  );

/** The `type` of a {@link FlowEvent}, e.g. `license-request`. */
export type FlowEventType = FlowEvent['type'];

/**
 * What an iteration of {@link FlowEvents} yields where it dropped events its loop was too slow to
 * take: how many, in a row. The same count as the `dropped` event of `GET /events`.
 */
export interface DroppedEvents {
  type: 'dropped';
  dropped: number;
}

/** Options of a {@link FlowEvents}. */
export interface FlowEventsOptions {
  /**
   * Events one `for await` loop may have waiting; default 1000. A loop that stops reading keeps
   * these and counts the rest as {@link DroppedEvents}, so it cannot grow memory without bound.
   */
  iterationQueue?: number;
}

type Listener = (event: FlowEvent) => void;

const HISTORY = 100;
const ITERATION_QUEUE = 1000;

/** A small typed emitter that is also an async iterable; `close()` ends every iteration. */
export class FlowEvents implements AsyncIterable<FlowEvent | DroppedEvents> {
  #listeners = new Set<Listener>();
  #closers = new Set<() => void>();
  /** A ring of the last HISTORY events: `#next` is where the next one goes (the oldest, once full). */
  #history: FlowEvent[] = [];
  #next = 0;
  #closed = false;
  #iterationQueue: number;

  constructor(options: FlowEventsOptions = {}) {
    const limit = options.iterationQueue ?? ITERATION_QUEUE;
    if (!Number.isSafeInteger(limit) || limit < 1) {
      throw new RangeError(`iterationQueue must be a whole number of events >= 1, got ${limit}`);
    }
    this.#iterationQueue = limit;
  }

  /** Calls `listener` for every later event; returns the function that stops it. */
  on(listener: Listener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Calls `listener` once when the emulator closes; returns the function that cancels it. */
  onClose(listener: () => void): () => void {
    if (this.#closed) {
      listener();
      return () => {};
    }
    this.#closers.add(listener);
    return () => this.#closers.delete(listener);
  }

  /** The last events (up to 100), oldest first, so a late subscriber can see what just happened. */
  recent(): readonly FlowEvent[] {
    const ring = this.#history;
    return ring.length < HISTORY
      ? [...ring]
      : [...ring.slice(this.#next), ...ring.slice(0, this.#next)];
  }

  get closed(): boolean {
    return this.#closed;
  }

  /**
   * Records the event and calls each listener (a throwing listener is ignored); does nothing once
   * closed.
   */
  emit(event: FlowEvent): void {
    if (this.#closed) return;
    // A ring, not push + shift: shift moves every element, on each of a license's events.
    if (this.#history.length < HISTORY) this.#history.push(event);
    else this.#history[this.#next] = event;
    this.#next = (this.#next + 1) % HISTORY;
    for (const listener of this.#listeners) {
      try {
        listener(event);
      } catch {
        // A failing subscriber must not break the license flow that emitted the event.
      }
    }
  }

  /** Ends every iteration and calls the `onClose` listeners, once; later events are dropped. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#listeners.clear();
    for (const closer of this.#closers) closer();
    this.#closers.clear();
  }

  /**
   * Yields every event from now on until `close()` or until the loop stops. A loop that falls behind
   * by `iterationQueue` events misses the later ones (as `GET /events` does): it gets the ones it had
   * waiting, then one {@link DroppedEvents} with how many it missed, then the events that came after.
   */
  [Symbol.asyncIterator](): AsyncIterator<FlowEvent | DroppedEvents> {
    const limit = this.#iterationQueue;
    const queue: (FlowEvent | DroppedEvents)[] = [];
    let dropped = 0;
    let wake: (() => void) | undefined;
    let done = this.#closed;
    const stop = () => {
      done = true;
      off();
      offClose();
      wake?.();
    };
    const off = this.on((event) => {
      // Counted, not kept: a loop that stopped reading costs a number, not the events.
      if (queue.length >= limit) {
        dropped++;
        return;
      }
      if (dropped > 0) {
        queue.push({ type: 'dropped', dropped });
        dropped = 0;
      }
      queue.push(event);
      wake?.();
    });
    const offClose = this.onClose(stop);
    return {
      next: async () => {
        while (queue.length === 0 && dropped === 0 && !done) {
          await new Promise<void>((resolve) => (wake = resolve));
          wake = undefined;
        }
        let item = queue.shift();
        // Drained while events were being dropped: say so now rather than at the next event.
        if (item === undefined && dropped > 0) {
          item = { type: 'dropped', dropped };
          dropped = 0;
        }
        return item ? { value: item, done: false } : { value: undefined, done: true };
      },
      return: async () => {
        stop();
        return { value: undefined, done: true };
      },
    };
  }
}

/** Emits the events of one license request, each stamped with the request's ID and elapsed time. */
export interface FlowRecorder {
  readonly requestId: string;
  /** Emits `event`, a new object the recorder takes over: it is stamped in place, not copied. */
  emit(event: DistributiveOmit<FlowEvent, keyof FlowBase>): void;
  elapsedMs(): number;
}

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/** An event of one type as a flow emits it, before it is stamped. */
export type FlowEventOf<T extends FlowEventType> = Extract<
  DistributiveOmit<FlowEvent, keyof FlowBase>,
  { type: T }
>;

export function createFlowRecorder(
  events: FlowEvents,
  requestId: string,
  clock: () => number = monotonic,
): FlowRecorder {
  return new Recorder(events, requestId, clock);
}

// One for all recorders: a default bound in the parameter list is a new function per license.
const monotonic = (): number => performance.now();

// A class rather than an object of closures: one object per license instead of three.
class Recorder implements FlowRecorder {
  readonly #events: FlowEvents;
  readonly #clock: () => number;
  readonly #start: number;
  readonly requestId: string;

  constructor(events: FlowEvents, requestId: string, clock: () => number) {
    this.#events = events;
    this.#clock = clock;
    this.#start = clock();
    this.requestId = requestId;
  }

  elapsedMs(): number {
    return Math.round((this.#clock() - this.#start) * 100) / 100;
  }

  emit(event: DistributiveOmit<FlowEvent, keyof FlowBase>): void {
    // Stamped in place rather than copied: each license emits three events, and a spread copy of
    // each cost more than the rest of the event. The members land in the same order either way.
    const stamped = event as Record<string, unknown>;
    stamped['requestId'] = this.requestId;
    stamped['at'] = isoNow();
    stamped['elapsedMs'] = this.elapsedMs();
    this.#events.emit(stamped as unknown as FlowEvent);
  }
}

// The events of a busy emulator fall many to a millisecond: each millisecond is formatted once.
let isoMs = Number.NaN;
let isoText = '';
function isoNow(): string {
  const ms = Date.now();
  if (ms !== isoMs) {
    isoMs = ms;
    isoText = new Date(ms).toISOString();
  }
  return isoText;
}
