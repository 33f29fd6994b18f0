import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import { frameStats, isBlankFrame, meanDifference, referenceFrame } from '../support/frames.ts';
import { MAX_FRAME_DIFFERENCE } from '../support/playback.ts';
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

  const { image, png, time } = await session.frameAt(id, 2);
  expect(time).toBe(2);
  if (process.env['MULTIDRM_E2E_SCREENSHOTS']) {
    writeFileSync(join(tmpdir(), `multidrm-e2e-${id}-2s.png`), png);
  }
  expect(isBlankFrame(image), `frame stats ${JSON.stringify(frameStats(image))}`).toBe(false);
  const at2s = meanDifference(image, referenceFrame(2));
  expect(at2s).toBeLessThan(MAX_FRAME_DIFFERENCE);
  expect(at2s).toBeLessThan(
    Math.min(meanDifference(image, referenceFrame(1)), meanDifference(image, referenceFrame(3))),
  );
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
