import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { hashReadings } from '../../src/hash-readings.ts';
import { sameText } from '../../src/web/crypto.ts';

// The emulator's reading of a token hash: which of the two public readings it is, or none. A hash
// cut short is none: a comparison that walked only the shorter text would call a prefix a match.

const ACCESS_KEY = 'LT2FVJDp2Xr018zf4Di6lzvNOv3DKP20';
const fields = {
  drm_type: 'Widevine',
  site_id: 'TUTO',
  user_id: 'alice',
  cid: 'movie-1',
  data: 'cG9saWN5',
  timestamp: '2026-01-02T03:04:05Z',
};
const digest = createHash('sha256')
  .update(
    ACCESS_KEY + 'Widevine' + 'TUTO' + 'alice' + 'movie-1' + 'cG9saWN5' + '2026-01-02T03:04:05Z',
  )
  .digest();
const rawDigest = digest.toString('base64');
const hexText = Buffer.from(digest.toString('hex').toUpperCase()).toString('base64');

describe('hash readings', () => {
  it('names the reading of a right hash', async () => {
    expect(await hashReadings(ACCESS_KEY, { ...fields, hash: rawDigest })).toBe('raw-digest');
    expect(await hashReadings(ACCESS_KEY, { ...fields, hash: hexText })).toBe('hex-text');
  });

  it('reads a hash cut short, or run long, as none', async () => {
    for (const hash of [rawDigest.slice(0, -1), hexText.slice(0, 40), '', `${rawDigest}AA`]) {
      expect(await hashReadings(ACCESS_KEY, { ...fields, hash })).toBe('none');
    }
  });

  it('compares texts of other lengths as different, whichever is longer', () => {
    expect(sameText('abc', 'abc')).toBe(true);
    expect(sameText('ab', 'abc')).toBe(false);
    expect(sameText('abc', 'ab')).toBe(false);
    expect(sameText('', 'a')).toBe(false);
  });
});
