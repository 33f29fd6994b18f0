import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import type { AppError, PlayerStatus } from '../page/harness-api.ts';
import { frameStats, isBlankFrame, meanDifference, referenceFrame } from './frames.ts';
import type { E2eSession } from './session.ts';

/** Screenshot of the decrypted frame vs. the clear source: measured at about 0.7 levels here. */
export const MAX_FRAME_DIFFERENCE = 5;

export interface PlaybackProof {
  status: PlayerStatus;
  /** Mean difference to the clear frame at 2 s, and to its neighbours at 1 s and 3 s. */
  difference: { at2s: number; at1s: number; at3s: number };
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

  const { image, png, time } = await session.frameAt(id, at);
  expect(time).toBe(at);
  if (process.env['MULTIDRM_E2E_SCREENSHOTS']) {
    writeFileSync(join(tmpdir(), `multidrm-e2e-${id}-2s.png`), png);
  }
  expect(isBlankFrame(image), `frame stats ${JSON.stringify(frameStats(image))}`).toBe(false);
  const difference = {
    at2s: meanDifference(image, referenceFrame(2)),
    at1s: meanDifference(image, referenceFrame(1)),
    at3s: meanDifference(image, referenceFrame(3)),
  };
  expect(difference.at2s).toBeLessThan(MAX_FRAME_DIFFERENCE);
  expect(difference.at2s).toBeLessThan(Math.min(difference.at1s, difference.at3s));
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
