import { existsSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import type { Locator } from 'playwright-core';
import { expectClearSourceFrame, shownFrame, type ShownFrame } from './support/frame-check.ts';
import { decodePng } from './support/png.ts';

// The frame check every playback test ends with, fed the clear source's own frames. No browser.

function sourceFrame(seconds: 2 | 3, time: number): ShownFrame {
  const png = readFileSync(new URL(`../fixtures/content/frames/${seconds}s.png`, import.meta.url));
  return { image: decodePng(png), png, time };
}

describe('the decrypted-frame check', () => {
  test('passes the clear frame at 2 s, at 2 s and at 10 s', () => {
    expect(expectClearSourceFrame(sourceFrame(2, 2), 'check-pass').at2s).toBe(0);
    expect(expectClearSourceFrame(sourceFrame(2, 10), 'check-pass', 10).at2s).toBe(0);
  });

  test('fails a neighbouring frame, says what it measured and keeps the screenshot', () => {
    const kept = join(tmpdir(), 'multidrm-e2e-check-fail-2s.png');
    rmSync(kept, { force: true });
    expect(() => expectClearSourceFrame(sourceFrame(3, 2), 'check-fail')).toThrow(
      /close to the clear frame: frame on screen at 2 s, .*"at2s":\d.*screenshot kept as .*multidrm-e2e-check-fail-2s\.png/,
    );
    expect(existsSync(kept)).toBe(true);
    rmSync(kept);
  });

  test('fails when the frame on screen is not the one asked for, whatever the picture', () => {
    expect(() => expectClearSourceFrame(sourceFrame(2, 2.0416), 'check-time')).toThrow(
      /the frame on screen is the one asked for: frame on screen at 2.0416 s/,
    );
    rmSync(join(tmpdir(), 'multidrm-e2e-check-time-2s.png'), { force: true });
  });
});

describe('showing the asked frame', () => {
  /** A <video> whose screenshots are the given clear frames in turn (each one twice: settled). */
  function video(frames: Array<2 | 3>) {
    const pngs = frames.flatMap((seconds) => {
      const png = readFileSync(
        new URL(`../fixtures/content/frames/${seconds}s.png`, import.meta.url),
      );
      return [png, png];
    });
    const locator = {
      screenshot: async () => pngs.shift() ?? Buffer.alloc(0),
      page: () => ({ evaluate: async () => undefined }),
    };
    return locator as unknown as Locator;
  }

  test('shows the frame again while the picture is another moment of the clip', async () => {
    let shows = 0;
    const frame = await shownFrame(async () => (shows++, 2), video([3, 2]));
    expect(shows).toBe(2);
    expect(expectClearSourceFrame(frame, 'shown-again').at2s).toBe(0);
  });

  test('gives up after three shows: the check then fails on what was on screen', async () => {
    let shows = 0;
    const frame = await shownFrame(async () => (shows++, 2), video([3, 3, 3, 2]));
    expect(shows).toBe(3);
    expect(() => expectClearSourceFrame(frame, 'shown-never')).toThrow(/close to the clear frame/);
    rmSync(join(tmpdir(), 'multidrm-e2e-shown-never-2s.png'), { force: true });
  });
});
