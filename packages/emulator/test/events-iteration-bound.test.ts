import { describe, expect, it } from 'vitest';
import { FlowEvents, type DroppedEvents, type FlowEvent } from '../src/events.ts';

// A `for await` loop over the emulator's events that stops reading must not make the emulator hold
// every later event: the loop keeps `iterationQueue` events and a count of the rest, as GET /events
// keeps its bytes and a `dropped` count. Measured by count, not by time or heap.

const event = (n: number): FlowEvent => ({
  type: 'license-request',
  requestId: String(n),
  at: new Date(0).toISOString(),
  elapsedMs: 0,
  kids: [],
});

type Item = FlowEvent | DroppedEvents;
const label = (item: Item) =>
  item.type === 'dropped' ? `dropped ${item.dropped}` : item.requestId;

/** Everything the iterator yields without waiting: its queue, then whatever a drain reports. */
async function drainWaiting(iterator: AsyncIterator<Item>, events: FlowEvents): Promise<string[]> {
  const got: string[] = [];
  // close() ends the iteration once what is waiting has been yielded, so the drain cannot block.
  events.close();
  for (;;) {
    const step = await iterator.next();
    if (step.done) return got;
    got.push(label(step.value));
  }
}

describe('FlowEvents iteration queue', () => {
  it('keeps at most iterationQueue events for a loop that reads nothing, and counts the rest', async () => {
    const events = new FlowEvents({ iterationQueue: 5 });
    const iterator = events[Symbol.asyncIterator]();
    for (let i = 0; i < 10_000; i++) events.emit(event(i));
    expect(await drainWaiting(iterator, events)).toEqual(['0', '1', '2', '3', '4', 'dropped 9995']);
  });

  it('holds 1000 events by default', async () => {
    const events = new FlowEvents();
    const iterator = events[Symbol.asyncIterator]();
    for (let i = 0; i < 1500; i++) events.emit(event(i));
    const got = await drainWaiting(iterator, events);
    expect(got).toHaveLength(1001);
    expect(got[999]).toBe('999');
    expect(got.at(-1)).toBe('dropped 500');
  });

  it('says how many it missed before the first event it has room for again, then resets the count', async () => {
    const events = new FlowEvents({ iterationQueue: 2 });
    const iterator = events[Symbol.asyncIterator]();
    for (let i = 1; i <= 5; i++) events.emit(event(i)); // keeps 1, 2; drops 3, 4, 5
    expect(label((await iterator.next()).value as Item)).toBe('1');
    events.emit(event(6)); // room for one: the count goes first, then 6
    events.emit(event(7)); // full again (2, dropped 3, 6): dropped
    events.emit(event(8));
    expect(await drainWaiting(iterator, events)).toEqual(['2', 'dropped 3', '6', 'dropped 2']);
  });

  it('reports a drop when the loop catches up, without waiting for another event', async () => {
    const events = new FlowEvents({ iterationQueue: 1 });
    const iterator = events[Symbol.asyncIterator]();
    events.emit(event(1));
    events.emit(event(2));
    expect(label((await iterator.next()).value as Item)).toBe('1');
    // No event comes after: the count must not wait for one.
    expect((await iterator.next()).value).toEqual({ type: 'dropped', dropped: 1 });
    const pending = iterator.next();
    events.emit(event(3));
    expect(label((await pending).value as Item)).toBe('3');
    await iterator.return?.();
  });

  it('loses nothing for a loop that keeps up', async () => {
    const events = new FlowEvents({ iterationQueue: 1 });
    const got: string[] = [];
    const loop = (async () => {
      for await (const item of events) got.push(label(item));
    })();
    for (let i = 0; i < 50; i++) {
      events.emit(event(i));
      await new Promise((resolve) => setImmediate(resolve));
    }
    events.close();
    await loop;
    expect(got).toEqual(Array.from({ length: 50 }, (_, i) => String(i)));
  });

  it('refuses an iterationQueue that is not a whole number >= 1', () => {
    for (const bad of [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(() => new FlowEvents({ iterationQueue: bad })).toThrow(
        /iterationQueue must be a whole number of events >= 1/,
      );
    }
  });
});
