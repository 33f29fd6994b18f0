import type { FlowEvent, FlowEvents } from '../events.ts';

const HEARTBEAT_MS = 15_000;

function frame(event: FlowEvent, id: number): string {
  return `id: ${id}\nevent: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`;
}

/**
 * `GET /events`: the recent events, then every new one, as server-sent events. The stream ends when
 * the client goes away or the emulator closes.
 */
export function eventStreamResponse(events: FlowEvents, headers: Record<string, string>): Response {
  const encoder = new TextEncoder();
  let stop = () => {};
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      let id = 0;
      const send = (text: string) => {
        try {
          controller.enqueue(encoder.encode(text));
        } catch {
          stop();
        }
      };
      send(': multidrm-emulator flow events\nretry: 2000\n\n');
      for (const event of events.recent()) send(frame(event, ++id));
      const off = events.on((event) => send(frame(event, ++id)));
      // A comment line now and then keeps proxies and idle timeouts from cutting the stream.
      const heartbeat = setInterval(() => send(': ping\n\n'), HEARTBEAT_MS);
      // Node: the heartbeat alone must not keep the process alive (browsers have no unref).
      if (typeof heartbeat === 'object') heartbeat.unref();
      const offClose = events.onClose(() => {
        stop();
        try {
          controller.close();
        } catch {
          // Already closed by the client.
        }
      });
      stop = () => {
        off();
        offClose();
        clearInterval(heartbeat);
      };
    },
    cancel() {
      stop();
    },
  });
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
