import { describe, expect, test } from 'vitest';
import {
  CencError,
  decryptSegment,
  readAvcNalUnits,
  readBoxes,
  readDefaultKid,
} from '../support/cenc/index.ts';
import type { CencErrorCode } from '../support/cenc/index.ts';
import { fixtureBytes, fixtureKeys } from './fixture.ts';

const key = Buffer.from(fixtureKeys().key, 'hex');
const init = fixtureBytes('video/init.mp4');
const segment = fixtureBytes('video/1.m4s');

function expectCencError(run: () => unknown, code: CencErrorCode, message: RegExp): void {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(CencError);
    expect((error as CencError).code).toBe(code);
    expect((error as CencError).message).toMatch(message);
    return;
  }
  throw new Error(`expected a CencError ${code}`);
}

/** A copy of `data` with a 32-bit field rewritten, located relative to the first `fourcc`. */
function patched(data: Uint8Array, fourcc: string, fieldOffset: number, value: number): Buffer {
  const copy = Buffer.from(data);
  const at = copy.indexOf(fourcc, 0, 'latin1');
  if (at < 0) throw new Error(`no ${fourcc}`);
  copy.writeUInt32BE(value, at + fieldOffset);
  return copy;
}

describe('box reader', () => {
  test('splits a segment into its top-level boxes', () => {
    expect(readBoxes(segment).map((box) => box.type)).toEqual(
      expect.arrayContaining(['moof', 'mdat']),
    );
  });

  test('reports a box that claims more bytes than remain', () => {
    expectCencError(
      () => readBoxes(segment.subarray(0, segment.length - 10)),
      'TRUNCATED',
      /claims \d+ bytes/,
    );
  });

  test('reports a header cut short', () => {
    expectCencError(() => readBoxes(new Uint8Array([0, 0, 0])), 'TRUNCATED', /cut short/);
  });
});

describe('decryptSegment rejects bad input with a coded error', () => {
  test('a key that is not 16 bytes', () => {
    expectCencError(
      () => decryptSegment(init, segment, key.subarray(0, 15)),
      'INVALID_KEY',
      /16 bytes, got 15/,
    );
  });

  test('a clear init segment', () => {
    const clearInit = fixtureBytes('clear/video/init.mp4');
    expectCencError(() => decryptSegment(clearInit, segment, key), 'NOT_ENCRYPTED', /no protected/);
    expectCencError(() => readDefaultKid(clearInit), 'NOT_ENCRYPTED', /no protected/);
  });

  test('a scheme other than cenc', () => {
    const cbcs = patched(init, 'schm', 8, Buffer.from('cbcs').readUInt32BE(0));
    expectCencError(() => decryptSegment(cbcs, segment, key), 'UNSUPPORTED', /'cbcs'/);
  });

  test('a sample that points outside the mdat', () => {
    const moved = patched(segment, 'trun', 12, 0x7fff0000);
    expectCencError(() => decryptSegment(init, moved, key), 'BAD_LAYOUT', /outside every mdat/);
  });

  test('a senc box whose sample count disagrees with trun', () => {
    const wrongCount = patched(segment, 'senc', 8, 3);
    expectCencError(
      () => decryptSegment(init, wrongCount, key),
      'BAD_LAYOUT',
      /senc lists 3 samples/,
    );
  });

  test('a segment of another track', () => {
    const otherTrack = patched(segment, 'tfhd', 8, 9);
    expectCencError(() => decryptSegment(init, otherTrack, key), 'MISSING_BOX', /track 1/);
  });

  test('an init segment without moov', () => {
    expectCencError(() => decryptSegment(segment, segment, key), 'MISSING_BOX', /'moov'/);
  });
});

describe('readAvcNalUnits', () => {
  test('reads length-prefixed units and their types', () => {
    const sample = new Uint8Array([0, 0, 0, 2, 0x65, 0xaa, 0, 0, 0, 1, 0x06]);
    expect(readAvcNalUnits(sample)).toEqual([
      { type: 5, size: 2 },
      { type: 6, size: 1 },
    ]);
  });

  test('rejects a length that runs past the sample', () => {
    expectCencError(
      () => readAvcNalUnits(new Uint8Array([0, 0, 0, 9, 0x65])),
      'BAD_LAYOUT',
      /does not fit/,
    );
  });

  test('rejects a unit with the forbidden bit set', () => {
    expectCencError(
      () => readAvcNalUnits(new Uint8Array([0, 0, 0, 1, 0xe5])),
      'BAD_LAYOUT',
      /forbidden/,
    );
  });
});
