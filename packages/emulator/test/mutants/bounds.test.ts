import { describe, expect, it } from 'vitest';
import { createEmulatorHandler, FlowEvents, type FlowEvent } from '../../src/index.ts';
import { EmulatorError } from '../../src/errors.ts';
import { StreamRegistry, type StreamIdentity } from '../../src/streams.ts';
import { eventStreamResponse } from '../../src/http/sse.ts';
import { CID, KEY, KID, LICENSE_PATH, TOKEN_SITE } from '../helpers.ts';

// Bounds and answers around the edges: first-license times kept for at most maxEntries
// entitlements, the Allow header of a 405, a closed FlowEvents, the `dropped` count of GET /events.

const T0 = Date.parse('2026-01-01T00:00:00Z');

describe('first-license times', () => {
  const who = (userId: string): StreamIdentity => ({
    siteId: 'S',
    userId,
    deviceId: 'd',
    cid: 'c',
    streamId: 's',
  });
  const policy = { persistent: false, playback_duration: 10 };
  const codeOf = (r: StreamRegistry, id: StreamIdentity, at: number) => {
    try {
      r.check(id, policy, at);
      return 'issued';
    } catch (error) {
      return error instanceof EmulatorError ? error.code : String(error);
    }
  };

  it('are kept for at most maxEntries entitlements, the oldest forgotten first', () => {
    const r = new StreamRegistry({ graceSeconds: 30, defaultIntervalSeconds: 60, maxEntries: 2 });
    for (const user of ['u1', 'u2', 'u3']) r.commit(r.check(who(user), policy, T0), policy, T0);
    const later = T0 + 20_000; // past every playback_duration of 10 s
    expect(codeOf(r, who('u3'), later)).toBe('LICENSE_EXPIRED');
    expect(codeOf(r, who('u2'), later)).toBe('LICENSE_EXPIRED');
    // u1's first license was forgotten: its playback_duration counts anew.
    expect(codeOf(r, who('u1'), later)).toBe('issued');
  });
});

describe('a 405', () => {
  it('says which methods the path allows', async () => {
    const handler = createEmulatorHandler({
      sites: [TOKEN_SITE],
      keys: { [CID]: { kid: KID, key: KEY } },
    });
    const response = await handler(new Request(`http://emulator.test${LICENSE_PATH}`));
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toMatch(/POST/);
  });
});

const event = (n: number): FlowEvent => ({
  type: 'license-request',
  requestId: String(n),
  at: new Date(0).toISOString(),
  elapsedMs: 0,
  kids: [],
});

describe('a closed FlowEvents', () => {
  it('records and delivers no more events', () => {
    const events = new FlowEvents();
    const got: string[] = [];
    events.on((e) => got.push(e.requestId));
    events.emit(event(1));
    events.close();
    events.emit(event(2));
    expect(events.recent().map((e) => e.requestId)).toEqual(['1']);
    expect(got).toEqual(['1']);
  });
});

describe('GET /events dropped count', () => {
  it('counts the events missed since the last one sent, not all missed so far', async () => {
    const events = new FlowEvents();
    // Room for the greeting and about one event: the rest of a burst is dropped.
    const limits = { bufferBytes: 400, cutAfterDropped: 1000 };
    const reader = eventStreamResponse(events, {}, limits).body!.getReader();
    const decoder = new TextDecoder();
    const counts: number[] = [];
    let text = '';
    // One read in flight at a time: a read that loses the race below is kept for the next call.
    let pending: ReturnType<typeof reader.read> | undefined;
    const readAll = async () => {
      // Everything queued so far, without waiting for more.
      for (;;) {
        pending ??= reader.read();
        const chunk = await Promise.race([
          pending,
          new Promise<undefined>((resolve) => setImmediate(() => resolve(undefined))),
        ]);
        if (chunk === undefined || chunk.done) return;
        pending = undefined;
        text += decoder.decode(chunk.value);
      }
    };
    for (const burst of [0, 1]) {
      for (let i = 0; i < 5; i++) events.emit(event(burst * 10 + i));
      await readAll();
    }
    events.emit(event(99));
    await readAll();
    for (const match of text.matchAll(/event: dropped\ndata: (\{.*\})/g)) {
      counts.push((JSON.parse(match[1]!) as { dropped: number }).dropped);
    }
    expect(counts.length).toBeGreaterThanOrEqual(2);
    // Each burst drops the same number; a count that is not reset would grow.
    expect(new Set(counts).size).toBe(1);
    events.close();
  });
});
