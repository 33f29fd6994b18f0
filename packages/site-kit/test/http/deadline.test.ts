import { afterEach, describe, expect, it, vi } from 'vitest';
import { withDeadline, type DeadlineContext } from '../../src/http/deadline.ts';

// A decision given at once needs no deadline; one that takes its time races the timer, and its
// signal aborts at the deadline whenever it is read.
describe('withDeadline', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('takes a result given at once as the outcome, with no timer set', () => {
    vi.useFakeTimers();
    expect(withDeadline(1000, () => 42)).toStrictEqual({ ok: true, value: 42 });
    const error = new Error('no');
    expect(
      withDeadline(1000, () => {
        throw error;
      }),
    ).toStrictEqual({ ok: false, timedOut: false, error });
    expect(vi.getTimerCount()).toBe(0);
  });

  it('awaits a promise within the deadline and clears its timer', async () => {
    vi.useFakeTimers();
    const outcome = withDeadline(1000, () => Promise.resolve('late but in time'));
    expect(vi.getTimerCount()).toBe(1);
    await expect(outcome).resolves.toStrictEqual({ ok: true, value: 'late but in time' });
    expect(vi.getTimerCount()).toBe(0);
    await expect(
      withDeadline(1000, () => Promise.reject(new Error('refused'))),
    ).resolves.toMatchObject({ ok: false, timedOut: false });
  });

  it('times out a hanging decision and aborts its signal, read before or after the deadline', async () => {
    vi.useFakeTimers();
    let early: AbortSignal | undefined;
    let context: DeadlineContext | undefined;
    const outcome = withDeadline(50, (c) => {
      early = c.signal;
      return new Promise<never>(() => undefined);
    });
    const other = withDeadline(50, (c) => {
      context = c;
      return new Promise<never>(() => undefined);
    });
    expect(early?.aborted).toBe(false);
    await vi.advanceTimersByTimeAsync(50);
    await expect(outcome).resolves.toStrictEqual({ ok: false, timedOut: true });
    await expect(other).resolves.toStrictEqual({ ok: false, timedOut: true });
    expect(early?.aborted).toBe(true);
    expect((early?.reason as DOMException).name).toBe('TimeoutError');
    // Read for the first time after the deadline: aborted all the same.
    expect(context?.signal.aborted).toBe(true);
    expect((context?.signal.reason as DOMException).name).toBe('TimeoutError');
  });
});
