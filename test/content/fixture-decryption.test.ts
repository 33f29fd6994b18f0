import { describe, expect, test } from 'vitest';
import {
  decryptSegment,
  readAvcNalUnits,
  readClearSamples,
  readDefaultKid,
  readFragmentSamples,
  readInitSegment,
} from '../support/cenc/index.ts';
import { fixtureBytes, fixtureKeys } from './fixture.ts';

const keys = fixtureKeys();
const key = Buffer.from(keys.key, 'hex');
const segmentNumbers = Array.from({ length: keys.durationSeconds / 2 }, (_, i) => i + 1);
const cases = ['video', 'audio'].flatMap((kind) => segmentNumbers.map((n) => [kind, n] as const));

function clearSamples(kind: string, n: number): Uint8Array[] {
  return readClearSamples(
    fixtureBytes(`clear/${kind}/init.mp4`),
    fixtureBytes(`clear/${kind}/${n}.m4s`),
  );
}

function bytesEqual(a: Uint8Array | undefined, b: Uint8Array | undefined): boolean {
  return a !== undefined && b !== undefined && Buffer.compare(a, b) === 0;
}

describe('init segments', () => {
  test.each(['video', 'audio'])('the %s init segment names the kid of keys.json', (kind) => {
    expect(readDefaultKid(fixtureBytes(`${kind}/init.mp4`))).toBe(keys.kid);
    const [track] = readInitSegment(fixtureBytes(`${kind}/init.mp4`)).tracks;
    expect(track?.encryption?.scheme).toBe('cenc');
    expect(track?.codec).toBe(kind === 'video' ? 'avc1' : 'mp4a');
  });
});

test('video declares BT.601 colours, the matrix ffmpeg used for the reference frames', () => {
  // Untagged video is decoded with BT.709 by Chromium, which shifts the bars' colours by up to 40
  // levels against the PNGs; with the tag, screenshots match the frames to a few levels.
  const init = Buffer.from(fixtureBytes('video/init.mp4'));
  const colr = init.indexOf('colrnclx', 0, 'latin1');
  expect(colr).toBeGreaterThan(0);
  const smpte170m = 6;
  expect([0, 2, 4].map((i) => init.readUInt16BE(colr + 8 + i))).toEqual([
    smpte170m,
    smpte170m,
    smpte170m,
  ]);
});

describe('decryption with the key of keys.json', () => {
  test.each(cases)('%s segment %i decrypts to the clear samples', (kind, n) => {
    const decrypted = decryptSegment(
      fixtureBytes(`${kind}/init.mp4`),
      fixtureBytes(`${kind}/${n}.m4s`),
      key,
    );
    const clear = clearSamples(kind, n);
    expect(decrypted.kid).toBe(keys.kid);
    expect(clear.length).toBeGreaterThan(0);
    expect(decrypted.samples.length).toBe(clear.length);
    decrypted.samples.forEach((sample, i) => expect(bytesEqual(sample, clear[i])).toBe(true));
  });

  test.each(cases)('every sample of %s segment %i is stored encrypted', (kind, n) => {
    const track = readInitSegment(fixtureBytes(`${kind}/init.mp4`)).tracks[0];
    if (track === undefined) throw new Error('no track');
    const stored = readFragmentSamples(fixtureBytes(`${kind}/${n}.m4s`), track);
    const clear = clearSamples(kind, n);
    stored.forEach((sample, i) => expect(bytesEqual(sample.data, clear[i])).toBe(false));
  });

  test('video uses subsample encryption that leaves NAL lengths and headers clear', () => {
    const track = readInitSegment(fixtureBytes('video/init.mp4')).tracks[0];
    if (track === undefined) throw new Error('no track');
    const [first] = readFragmentSamples(fixtureBytes('video/1.m4s'), track);
    expect(first?.encryption?.subsamples.length).toBeGreaterThan(0);
    expect(first?.encryption?.iv.length).toBe(8);
  });

  test('decrypted video samples are H.264 NAL units, each segment opening with an IDR picture', () => {
    const lengthSize = readInitSegment(fixtureBytes('video/init.mp4')).tracks[0]?.nalLengthSize;
    expect(lengthSize).toBe(4);
    for (const n of segmentNumbers) {
      const { samples } = decryptSegment(
        fixtureBytes('video/init.mp4'),
        fixtureBytes(`video/${n}.m4s`),
        key,
      );
      const units = samples.map((sample) => readAvcNalUnits(sample, lengthSize));
      expect(units[0]?.map((u) => u.type)).toContain(5);
      for (const unit of units.flat()) expect([1, 5, 6, 7, 8, 9]).toContain(unit.type);
    }
  });
});

describe('decryption with a wrong key', () => {
  test.each(['video', 'audio'])('yields %s samples that differ from the clear ones', (kind) => {
    const wrongKey = Buffer.from(key.map((byte) => byte ^ 0x01));
    const { samples } = decryptSegment(
      fixtureBytes(`${kind}/init.mp4`),
      fixtureBytes(`${kind}/1.m4s`),
      wrongKey,
    );
    const clear = clearSamples(kind, 1);
    expect(samples.length).toBe(clear.length);
    samples.forEach((sample, i) => expect(bytesEqual(sample, clear[i])).toBe(false));
  });
});
