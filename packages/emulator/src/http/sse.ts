import type { FlowEvent, FlowEvents } from '../events.ts';

const HEARTBEAT_MS = 15_000;

/** How much one `GET /events` subscriber may hold back, and when a stalled one is cut. */
export interface EventStreamLimits {
  /** Bytes of events queued for a subscriber that is not reading; default 256 KiB. */
  bufferBytes: number;
  /** A subscriber that has missed this many events in a row is cut (its stream ends); default 1000. */
  cutAfterDropped: number;
}

export const DEFAULT_EVENT_STREAM_LIMITS: EventStreamLimits = {
  bufferBytes: 256 * 1024,
  cutAfterDropped: 1000,
};

// One JSON text per event, however many subscribers send it: the per-event cost of N subscribers is
// N small copies, not N serializations.
const serialized = new WeakMap<FlowEvent, string>();
function jsonOf(event: FlowEvent): string {
  let json = serialized.get(event);
  if (json === undefined) {
    json = JSON.stringify(event);
    serialized.set(event, json);
  }
  return json;
}

function frame(event: FlowEvent, id: number): string {
  return `id: ${id}\nevent: ${event.type}\ndata: ${jsonOf(event)}\n\n`;
}

/**
 * `GET /events`: the recent events, then every new one, as server-sent events. The stream ends when
 * the client goes away or the emulator closes. A client that does not read (paused, slow, gone
 * without closing) cannot make the emulator hold more than `bufferBytes` for it: events that do not
 * fit are dropped and counted, the count is sent as an event `dropped` ({"dropped": n}) before the
 * next one that fits, and after `cutAfterDropped` misses in a row the stream ends with an event `cut`.
 * `onEnd` runs once, however the stream ends.
 */
export function eventStreamResponse(
  events: FlowEvents,
  headers: Record<string, string>,
  limits: EventStreamLimits = DEFAULT_EVENT_STREAM_LIMITS,
  onEnd: () => void = () => {},
): Response {
  const encoder = new TextEncoder();
  let stop = () => {};
  let ended = false;
  const end = () => {
    if (ended) return;
    ended = true;
    stop();
    onEnd();
  };
  const body = new ReadableStream<Uint8Array>(
    {
      start(controller) {
        let id = 0;
        let dropped = 0;
        let missedInRow = 0;
        const enqueue = (text: string) => {
          try {
            controller.enqueue(encoder.encode(text));
          } catch {
            end();
          }
        };
        const room = () => controller.desiredSize ?? 0;
        const close = () => {
          end();
          try {
            controller.close();
          } catch {
            // Already closed by the client.
          }
        };
        const send = (event: FlowEvent) => {
          // Nothing is serialized for a subscriber with no room: a stalled one costs almost nothing.
          const text = room() > 0 ? frame(event, id + 1) : undefined;
          if (text === undefined || room() < text.length + 64) {
            dropped++;
            missedInRow++;
            if (missedInRow >= limits.cutAfterDropped) {
              enqueue(`event: cut\ndata: ${JSON.stringify({ dropped })}\n\n`);
              close();
            }
            return;
          }
          if (dropped > 0) enqueue(`event: dropped\ndata: ${JSON.stringify({ dropped })}\n\n`);
          dropped = 0;
          missedInRow = 0;
          id++;
          enqueue(text);
        };
        enqueue(': multidrm-emulator flow events\nretry: 2000\n\n');
        for (const event of events.recent()) send(event);
        const off = events.on(send);
        // A comment line now and then keeps proxies and idle timeouts from cutting the stream.
        const heartbeat = setInterval(() => {
          if (room() > 0) enqueue(': ping\n\n');
        }, HEARTBEAT_MS);
        // Node: the heartbeat alone must not keep the process alive (browsers have no unref).
        if (typeof heartbeat === 'object') heartbeat.unref();
        const offClose = events.onClose(close);
        stop = () => {
          off();
          offClose();
          clearInterval(heartbeat);
        };
      },
      cancel() {
        end();
      },
    },
    // The queue is measured in bytes, so `desiredSize` says how many more fit.
    { highWaterMark: limits.bufferBytes, size: (chunk) => chunk.byteLength },
  );
  return new Response(body, {
    status: 200,
    headers: {
      ...headers,
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      'x-accel-buffering': 'no',
    },
  });
}
