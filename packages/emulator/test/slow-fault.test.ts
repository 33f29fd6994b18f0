import { afterEach, describe, expect, it, vi } from 'vitest';
import { createEmulatorHandler } from '../src/index.ts';
import { clearKeyRequest, KID, LICENSE_PATH, TOKEN_SITE } from './helpers.ts';

// The `slow` fault must delay the answer by its `ms`, not only announce itself in an event. Fake
// time: the answer is looked at just before and at the delay, so no real clock decides the result.

afterEach(() => {
  vi.useRealTimers();
});

function licenseRequest(): Request {
  return new Request(`http://emulator.test${LICENSE_PATH}`, {
    method: 'POST',
    body: clearKeyRequest(KID),
  });
}

describe('the slow fault', () => {
  it('holds the answer for exactly its ms, then the request goes on', async () => {
    vi.useFakeTimers();
    const handler = createEmulatorHandler(
      { sites: [TOKEN_SITE] },
      { faults: [{ fault: 'slow', ms: 2_000 }] },
    );
    let settled = false;
    const answer = handler(licenseRequest()).finally(() => (settled = true));
    await vi.advanceTimersByTimeAsync(1_999);
    expect(settled).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    const response = await answer;
    // It went on: the request without custom data is refused as usual (7010), after the delay.
    expect(response.status).toBe(200);
    expect(((await response.json()) as { errorCode: string }).errorCode).toBe('7010');
    handler.events.close();
  });
});
