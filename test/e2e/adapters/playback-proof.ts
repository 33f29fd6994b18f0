import { expect } from 'vitest';
import { expectClearSourceFrame } from '../support/frame-check.ts';
import type { AdapterStatus, AppError } from './page/adapter-api.ts';
import type { PlayerPage } from './adapter-session.ts';

/**
 * Real decrypted playback, by the measure of test/e2e (support/playback.ts): the player plays past
 * 2 s with no error, and its picture at 2 s is a real frame that matches the clear source at 2 s
 * better than the frames at 1 s and 3 s.
 */
export async function expectDecryptedPlayback(
  session: PlayerPage,
  id: string,
): Promise<AdapterStatus> {
  const status = await session.waitFor(
    id,
    'playback past 2 s',
    (s) => s.currentTime > 2 || s.errors.length > 0,
    20_000,
  );
  expect(status.errors, describeErrors(status.errors)).toEqual([]);
  expect(status.currentTime).toBeGreaterThan(2);

  expectClearSourceFrame(await session.frameAt(id, 2), id);
  expect(session.pageErrors).toEqual([]);
  return status;
}

/** Waits for the first error the app receives through its player and returns it. */
export async function firstAppError(
  session: PlayerPage,
  id: string,
  timeoutMs = 15_000,
): Promise<{ error: AppError; status: AdapterStatus }> {
  const status = await session.waitFor(id, 'an error', (s) => s.errors.length > 0, timeoutMs);
  return { error: status.errors[0] as AppError, status };
}

function describeErrors(errors: AppError[]): string {
  return errors.length === 0 ? 'no error' : `the app received ${JSON.stringify(errors)}`;
}
