import { readFileSync } from 'node:fs';
import { decodePng, type RgbImage } from './png.ts';

export interface FrameStats {
  /** Mean BT.601 luma, 0..255. */
  meanLuma: number;
  /** Standard deviation of the luma: near 0 for a flat (black, grey) frame. */
  lumaSpread: number;
}

export function frameStats(image: RgbImage): FrameStats {
  const n = image.width * image.height;
  let sum = 0;
  let squares = 0;
  for (let p = 0; p < n; p++) {
    const y =
      0.299 * (image.rgb[p * 3] as number) +
      0.587 * (image.rgb[p * 3 + 1] as number) +
      0.114 * (image.rgb[p * 3 + 2] as number);
    sum += y;
    squares += y * y;
  }
  const mean = sum / n;
  return { meanLuma: mean, lumaSpread: Math.sqrt(Math.max(0, squares / n - mean * mean)) };
}

/** A frame of real picture, not the black (or flat) frame a video shows when nothing decrypted. */
export function isBlankFrame(image: RgbImage): boolean {
  const { meanLuma, lumaSpread } = frameStats(image);
  return meanLuma < 16 || lumaSpread < 8;
}

/** Mean absolute difference per channel, in levels (0..255), of two images of the same size. */
export function meanDifference(a: RgbImage, b: RgbImage): number {
  if (a.width !== b.width || a.height !== b.height) {
    throw new Error(
      `Cannot compare a ${a.width}x${a.height} image with a ${b.width}x${b.height} one.`,
    );
  }
  let total = 0;
  for (let i = 0; i < a.rgb.length; i++)
    total += Math.abs((a.rgb[i] as number) - (b.rgb[i] as number));
  return total / a.rgb.length;
}

const FRAMES = new URL('../../fixtures/content/frames/', import.meta.url);

/** The clear source frame at `seconds` (1..4), decoded by ffmpeg from the unencrypted clip. */
export function referenceFrame(seconds: 1 | 2 | 3 | 4): RgbImage {
  return decodePng(readFileSync(new URL(`${seconds}s.png`, FRAMES)));
}
