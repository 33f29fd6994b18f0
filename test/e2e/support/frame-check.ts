import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Locator } from 'playwright-core';
import { expect } from 'vitest';
import { frameStats, isBlankFrame, meanDifference, referenceFrame } from './frames.ts';
import { decodePng, type RgbImage } from './png.ts';

/** Screenshot of the decrypted frame vs. the clear source: measured at about 0.7 levels here. */
export const MAX_FRAME_DIFFERENCE = 5;

/** A screenshot of a player's picture, and the media time of the frame the browser put on screen. */
export interface ShownFrame {
  image: RgbImage;
  png: Buffer;
  time: number;
}

/** Screenshots taken at most while the picture settles. */
const MAX_SCREENSHOTS = 12;

/**
 * Screenshots the <video> `video` after the page has shown the frame at media time `time`: again
 * after each animation frame until two in a row are the same picture. The browser has put the
 * frame on screen by then, but a busy CPU composites late: a screenshot taken at once caught the
 * frame before the seek (13 levels off at 2 s, under one busy core). The picture judged is the
 * settled one; what it must match is unchanged.
 */
export async function screenshotFrame(video: Locator, time: number): Promise<ShownFrame> {
  const nextFrames = () =>
    video.page().evaluate(
      () =>
        new Promise<void>((resolve) => {
          const page = globalThis as unknown as { requestAnimationFrame(cb: () => void): number };
          page.requestAnimationFrame(() => page.requestAnimationFrame(() => resolve()));
        }),
    );
  let png = await video.screenshot({ animations: 'disabled' });
  for (let shot = 1; shot < MAX_SCREENSHOTS; shot++) {
    await nextFrames();
    const again = await video.screenshot({ animations: 'disabled' });
    if (again.equals(png)) break;
    png = again;
  }
  return { image: decodePng(png), png, time };
}

/** Times the page shows the asked frame and the picture is taken, at most, in `shownFrame`. */
const MAX_SHOWS = 3;

/**
 * Has the page show the frame at `at` (`show` resolves with the media time the browser reports)
 * and screenshots it; again, at most MAX_SHOWS times, while the picture is not that moment of the
 * clip by the measure `expectClearSourceFrame` applies. A busy CPU can put a frame decoded for an
 * earlier position on screen after the asked one, without telling the page (one busy core showed
 * the frame at 1.5 s, reported as 2 s). The check on the returned frame is unchanged: a picture
 * that never decrypted, or is never that moment, fails every time.
 */
export async function shownFrame(
  show: () => Promise<number>,
  video: Locator,
  at = 2,
): Promise<ShownFrame> {
  let frame = await screenshotFrame(video, await show());
  for (let shows = 1; shows < MAX_SHOWS && !measure(frame, at).matches; shows++) {
    frame = await screenshotFrame(video, await show());
  }
  return frame;
}

function measure(frame: ShownFrame, at: number) {
  const difference = {
    at2s: meanDifference(frame.image, referenceFrame(2)),
    at1s: meanDifference(frame.image, referenceFrame(1)),
    at3s: meanDifference(frame.image, referenceFrame(3)),
  };
  const matches =
    frame.time === at &&
    !isBlankFrame(frame.image) &&
    difference.at2s < MAX_FRAME_DIFFERENCE &&
    difference.at2s < Math.min(difference.at1s, difference.at3s);
  return { difference, matches };
}

/** Mean difference to the clear frame at 2 s, and to its neighbours at 1 s and 3 s. */
export interface FrameDifference {
  at2s: number;
  at1s: number;
  at3s: number;
}

/**
 * The picture is the clear source's frame at 2 s, decrypted: the frame on screen is the one at `at`
 * seconds (2, or 10 in the two-period content, which plays the 8 s clip twice), it is not blank, and
 * it differs from the clear frame by less than MAX_FRAME_DIFFERENCE and by less than from the frames
 * at 1 s and 3 s. A failing check keeps the screenshot and names it; MULTIDRM_E2E_SCREENSHOTS=1
 * keeps every one.
 */
export function expectClearSourceFrame(frame: ShownFrame, name: string, at = 2): FrameDifference {
  const { difference, matches } = measure(frame, at);
  const stats = frameStats(frame.image);
  let kept = '';
  if (!matches || process.env['MULTIDRM_E2E_SCREENSHOTS']) {
    const file = join(tmpdir(), `multidrm-e2e-${name}-${at}s.png`);
    writeFileSync(file, frame.png);
    kept = `; screenshot kept as ${file}`;
  }
  const measured = `frame on screen at ${frame.time} s, ${JSON.stringify({ ...stats, difference })}${kept}`;
  expect(frame.time, `the frame on screen is the one asked for: ${measured}`).toBe(at);
  expect(isBlankFrame(frame.image), `a real picture: ${measured}`).toBe(false);
  expect(difference.at2s, `close to the clear frame: ${measured}`).toBeLessThan(
    MAX_FRAME_DIFFERENCE,
  );
  expect(difference.at2s, `closer to 2 s than to 1 s and 3 s: ${measured}`).toBeLessThan(
    Math.min(difference.at1s, difference.at3s),
  );
  return difference;
}
