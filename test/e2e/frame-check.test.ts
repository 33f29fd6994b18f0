import { existsSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { expectClearSourceFrame, type ShownFrame } from './support/frame-check.ts';
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
