import { describe, expect, it } from 'vitest';
import { createFlowRecorder, FlowEvents, type FlowEvent } from '../src/events.ts';

const event = (n: number): FlowEvent => ({
  type: 'license-denied',
  requestId: String(n),
  at: new Date(0).toISOString(),
  elapsedMs: 0,
  status: 200,
  errorCode: '7010',
  reason: 'MISSING_CUSTOM_DATA',
  message: 'No token or custom data',
  detail: 'd',
});

describe('FlowEvents', () => {
  it('keeps the last 100 events for late subscribers, oldest first', () => {
    const events = new FlowEvents();
    for (let i = 0; i < 130; i++) events.emit(event(i));
    const recent = events.recent();
    expect(recent).toHaveLength(100);
    expect(recent[0]?.requestId).toBe('30');
    expect(recent.at(-1)?.requestId).toBe('129');
  });

  it('keeps delivering when one listener throws', () => {
    const events = new FlowEvents();
    const got: string[] = [];
    events.on(() => {
      throw new Error('listener bug');
    });
    events.on((e) => got.push(e.requestId));
    events.emit(event(1));
    expect(got).toEqual(['1']);
  });

  it('stops a listener when its unsubscribe function is called', () => {
    const events = new FlowEvents();
    const got: string[] = [];
    const off = events.on((e) => got.push(e.requestId));
    events.emit(event(1));
    off();
    events.emit(event(2));
    expect(got).toEqual(['1']);
  });

  it('ends an iteration that breaks, and unsubscribes it', async () => {
    const events = new FlowEvents();
    const got: string[] = [];
    const loop = (async () => {
      for await (const e of events) {
        got.push(e.type === 'dropped' ? `dropped ${e.dropped}` : e.requestId);
        if (got.length === 2) break;
      }
    })();
    for (let i = 1; i <= 3; i++) {
      events.emit(event(i));
      await new Promise((r) => setImmediate(r));
    }
    await loop;
    expect(got).toEqual(['1', '2']);
  });

  it('stamps events of one request with its ID and a growing elapsed time', () => {
    const events = new FlowEvents();
    let clock = 10;
    const flow = createFlowRecorder(events, 'req-1', () => clock);
    flow.emit({ type: 'license-request', kids: [] });
    clock = 12.5;
    flow.emit({ type: 'token-checked', ok: false, errorCode: '7009', reason: 'MALFORMED_TOKEN' });
    expect(events.recent().map((e) => [e.requestId, e.elapsedMs])).toEqual([
      ['req-1', 0],
      ['req-1', 2.5],
    ]);
  });
});
