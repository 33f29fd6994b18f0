import { expect } from 'vitest';
import type { AppError, PlayerStatus } from '../page/harness-api.ts';
import { expectClearSourceFrame, type FrameDifference } from './frame-check.ts';
import type { E2eSession } from './session.ts';

export interface PlaybackProof {
  status: PlayerStatus;
  difference: FrameDifference;
}

/**
 * Real decrypted playback of player `id`: it plays past `at` seconds with no error, and its picture
 * there is a real frame that matches the clear source at 2 s better than any other second. `at` is
 * 2, or 10 in the two-period content, which plays the 8 s clip twice.
 */
export async function expectDecryptedPlayback(
  session: E2eSession,
  id: string,
  { at = 2 }: { at?: 2 | 10 } = {},
): Promise<PlaybackProof> {
  const status = await session.waitFor(
    id,
    `playback past ${at} s`,
    (s) => s.currentTime > at || s.errors.length > 0,
    Math.max(15_000, at * 1000 + 10_000),
  );
  expect(status.errors, describeErrors(status.errors)).toEqual([]);
  expect(status.currentTime).toBeGreaterThan(at);

  const difference = expectClearSourceFrame(await session.frameAt(id, at), id, at);
  expect(session.pageErrors).toEqual([]);
  return { status, difference };
}

/** Waits for the first error the app receives and returns it. */
export async function firstAppError(
  session: E2eSession,
  id: string,
  timeoutMs = 15_000,
): Promise<{ error: AppError; status: PlayerStatus }> {
  const status = await session.waitFor(id, 'an error', (s) => s.errors.length > 0, timeoutMs);
  return { error: status.errors[0] as AppError, status };
}

function describeErrors(errors: AppError[]): string {
  return errors.length === 0 ? 'no error' : `the app received ${JSON.stringify(errors)}`;
}
