import { describe, expect, it } from 'vitest';
import { createEmulatorHandler, type FlowEvent } from '../src/index.ts';
import { TOKEN_SITE } from './helpers.ts';

// `GET /events` subscribers that do not read (paused, slow, gone without closing) must not make the
// emulator hold their events: 100 paused subscribers once grew it by ~1 GiB over 10 000 requests.
// These tests pause subscribers on the transport-free handler, emit thousands of events, and count
// the bytes the stream kept for them. No clock is involved: only what was queued and what was said.

const BUFFER = 16 * 1024;
const EVENTS = 5_000;

/** A license-request event of about 300 bytes as a frame. */
function event(n: number): FlowEvent {
  return {
    type: 'license-request',
    requestId: `r${n}`,
    at: '2026-01-01T00:00:00.000Z',
    elapsedMs: 0,
    kids: Array.from({ length: 6 }, (_, i) => `${String(n).padStart(8, '0')}${i}`.padEnd(32, 'a')),
  };
}

function emulator(limits: { bufferBytes?: number; cutAfterDropped?: number; max?: number }) {
  return createEmulatorHandler({ sites: [TOKEN_SITE] }, { eventStreams: limits });
}

const subscribe = (handler: ReturnType<typeof emulator>) =>
  handler(new Request('http://emulator.test/events'));

interface Read {
  bytes: number;
  /** The `id` of every event frame, in order. */
  ids: number[];
  /** The data of every `dropped` and `cut` notice. */
  notices: { event: string; dropped: number }[];
}

/** Reads `chunks` chunks, or to the end of the stream when undefined. */
async function read(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  chunks?: number,
): Promise<Read> {
  const decoder = new TextDecoder();
  let text = '';
  let bytes = 0;
  for (let i = 0; chunks === undefined || i < chunks; i++) {
    const { done, value } = await reader.read();
    if (done) break;
    bytes += value.byteLength;
    text += decoder.decode(value, { stream: true });
  }
  const ids = [...text.matchAll(/^id: (\d+)$/gm)].map((m) => Number(m[1]));
  const notices = [...text.matchAll(/^event: (dropped|cut)\ndata: (.*)$/gm)].map((m) => ({
    event: m[1] as string,
    dropped: (JSON.parse(m[2] as string) as { dropped: number }).dropped,
  }));
  return { bytes, ids, notices };
}

describe('GET /events under back-pressure', () => {
  it('a paused subscriber holds at most its buffer, however many events pass', async () => {
    const handler = emulator({ bufferBytes: BUFFER, cutAfterDropped: EVENTS * 2 });
    const paused = await subscribe(handler);
    for (let n = 0; n < EVENTS; n++) handler.events.emit(event(n));
    handler.events.close();

    const got = await read((paused.body as ReadableStream<Uint8Array>).getReader());
    // Everything it held is what the stream kept for it while it was paused.
    expect(got.bytes).toBeLessThanOrEqual(BUFFER + 1024);
    expect(got.ids.length).toBeGreaterThan(0);
    expect(got.ids.length).toBeLessThan(EVENTS / 10);
  });

  it('events that did not fit are counted, and the count comes before the next event that fits', async () => {
    const handler = emulator({ bufferBytes: BUFFER, cutAfterDropped: EVENTS * 2 });
    const slow = await subscribe(handler);
    const reader = (slow.body as ReadableStream<Uint8Array>).getReader();
    for (let n = 0; n < EVENTS; n++) handler.events.emit(event(n));
    // The subscriber reads a few frames (room for more), then one more event passes.
    const first = await read(reader, 8);
    handler.events.emit(event(EVENTS));
    handler.events.close();
    const rest = await read(reader);

    const ids = [...first.ids, ...rest.ids];
    expect(rest.notices).toHaveLength(1);
    const [notice] = rest.notices;
    expect(notice?.event).toBe('dropped');
    // Every event was either sent or counted as dropped: nothing vanished unsaid.
    expect(ids.length + (notice?.dropped ?? 0)).toBe(EVENTS + 1);
    expect(ids).toEqual(ids.map((_, i) => i + 1));
    expect(first.bytes + rest.bytes).toBeLessThanOrEqual(2 * BUFFER + 1024);
  });

  it('a subscriber that misses cutAfterDropped events in a row is cut, and its place is freed', async () => {
    const handler = emulator({ bufferBytes: BUFFER, cutAfterDropped: 100, max: 1 });
    const stalled = await subscribe(handler);
    expect((await subscribe(handler)).status).toBe(429);
    for (let n = 0; n < EVENTS; n++) handler.events.emit(event(n));

    // The stream ended by itself (no close of the emulator): it says so, with the count.
    const got = await read((stalled.body as ReadableStream<Uint8Array>).getReader());
    expect(got.notices).toEqual([{ event: 'cut', dropped: 100 }]);
    expect(got.bytes).toBeLessThanOrEqual(BUFFER + 1024);
    // Its place is free again.
    const next = await subscribe(handler);
    expect(next.status).toBe(200);
    await next.body?.cancel();
    handler.events.close();
  });

  it('subscribers are capped: one over eventStreams.max gets 429, a cancelled one frees its place', async () => {
    const handler = emulator({ max: 2 });
    const a = await subscribe(handler);
    const b = await subscribe(handler);
    expect([a.status, b.status]).toEqual([200, 200]);
    const over = await subscribe(handler);
    expect(over.status).toBe(429);
    expect(over.headers.get('x-drm-error-code')).toBe('TOO_MANY_EVENT_STREAMS');
    expect(((await over.json()) as { message: string }).message).toBe(
      'GET /events already has 2 subscribers, the most it serves at once: close one, or raise eventStreams.max.',
    );
    await a.body?.cancel();
    const again = await subscribe(handler);
    expect(again.status).toBe(200);
    handler.events.close();
  });

  it('the default allows 32 subscribers', async () => {
    const handler = createEmulatorHandler({ sites: [TOKEN_SITE] });
    const open = await Promise.all(Array.from({ length: 32 }, () => subscribe(handler)));
    expect(open.map((r) => r.status)).toEqual(open.map(() => 200));
    expect((await subscribe(handler)).status).toBe(429);
    handler.events.close();
  });
});
