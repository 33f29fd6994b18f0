import { Cursor, findBox, fullBox, readBoxes } from './boxes.ts';
import type { Box } from './boxes.ts';
import { CencError } from './errors.ts';
import type { TrackInfo } from './init-segment.ts';

export interface Subsample {
  readonly clearBytes: number;
  readonly protectedBytes: number;
}

/** Per-sample encryption data from `senc`. */
export interface SampleEncryption {
  readonly iv: Uint8Array;
  /** Empty when the whole sample is encrypted. */
  readonly subsamples: readonly Subsample[];
}

export interface FragmentSample {
  /** The sample's bytes, as stored (still encrypted for protected tracks). */
  readonly data: Uint8Array;
  readonly encryption: SampleEncryption | undefined;
}

const TFHD_BASE_DATA_OFFSET = 0x1;
const TFHD_SAMPLE_DESCRIPTION_INDEX = 0x2;
const TFHD_DEFAULT_DURATION = 0x8;
const TFHD_DEFAULT_SIZE = 0x10;
const TFHD_DEFAULT_FLAGS = 0x20;
const TRUN_DATA_OFFSET = 0x1;
const TRUN_FIRST_SAMPLE_FLAGS = 0x4;
const TRUN_DURATION = 0x100;
const TRUN_SIZE = 0x200;
const TRUN_FLAGS = 0x400;
const TRUN_COMPOSITION_OFFSET = 0x800;
const SENC_OVERRIDE_TRACK_ENCRYPTION = 0x1;
const SENC_USE_SUBSAMPLES = 0x2;

/**
 * The samples of `track` in a media segment (styp/sidx/moof/mdat...), in decode order, across every
 * movie fragment of the segment.
 */
export function readFragmentSamples(segment: Uint8Array, track: TrackInfo): FragmentSample[] {
  const top = readBoxes(segment);
  const mdats = top.filter((box) => box.type === 'mdat');
  const samples: FragmentSample[] = [];
  let sawTraf = false;
  for (const moof of top.filter((box) => box.type === 'moof')) {
    const trafs = readBoxes(moof.payload, moof.offset + headerSize(moof)).filter(
      (box) => box.type === 'traf',
    );
    for (const traf of trafs) {
      const children = readBoxes(traf.payload);
      const tfhd = findBox(children, 'tfhd');
      if (tfhd === undefined) throw new CencError('MISSING_BOX', "no 'traf/tfhd' box");
      const header = readTfhd(tfhd, track);
      if (header.trackId !== track.trackId) continue;
      sawTraf = true;
      // Without an explicit base the moof is the base: exact for default-base-is-moof (which DASH
      // segments set) and for a moof's first traf, the only layouts this reader needs.
      const base = header.baseDataOffset ?? moof.offset;
      const ranges = readTrunRanges(children, base, header.defaultSampleSize);
      const encryption = readSenc(children, track, ranges.length);
      ranges.forEach((range, i) => {
        samples.push({
          data: sliceInMdat(segment, mdats, range.offset, range.size),
          encryption: encryption?.[i],
        });
      });
    }
  }
  if (!sawTraf) {
    throw new CencError('MISSING_BOX', `no 'moof/traf' for track ${track.trackId} in the segment`);
  }
  return samples;
}

interface TfhdFields {
  readonly trackId: number;
  readonly baseDataOffset: number | undefined;
  readonly defaultSampleSize: number;
}

function readTfhd(tfhd: Box, track: TrackInfo): TfhdFields {
  const { flags, body } = fullBox(tfhd);
  const cursor = new Cursor(body, 'tfhd');
  const trackId = cursor.u32();
  const explicitBase = flags & TFHD_BASE_DATA_OFFSET ? cursor.u64() : undefined;
  if (flags & TFHD_SAMPLE_DESCRIPTION_INDEX) cursor.skip(4);
  if (flags & TFHD_DEFAULT_DURATION) cursor.skip(4);
  const defaultSampleSize = flags & TFHD_DEFAULT_SIZE ? cursor.u32() : track.defaultSampleSize;
  if (flags & TFHD_DEFAULT_FLAGS) cursor.skip(4);
  return { trackId, baseDataOffset: explicitBase, defaultSampleSize };
}

interface ByteRange {
  readonly offset: number;
  readonly size: number;
}

function readTrunRanges(
  trafChildren: readonly Box[],
  base: number,
  defaultSampleSize: number,
): ByteRange[] {
  const ranges: ByteRange[] = [];
  let next = base;
  for (const trun of trafChildren.filter((box) => box.type === 'trun')) {
    const { flags, body } = fullBox(trun);
    const cursor = new Cursor(body, 'trun');
    const count = cursor.u32();
    if (flags & TRUN_DATA_OFFSET) next = base + cursor.i32();
    if (flags & TRUN_FIRST_SAMPLE_FLAGS) cursor.skip(4);
    for (let i = 0; i < count; i++) {
      if (flags & TRUN_DURATION) cursor.skip(4);
      const size = flags & TRUN_SIZE ? cursor.u32() : defaultSampleSize;
      if (flags & TRUN_FLAGS) cursor.skip(4);
      if (flags & TRUN_COMPOSITION_OFFSET) cursor.skip(4);
      ranges.push({ offset: next, size });
      next += size;
    }
  }
  if (ranges.length === 0) throw new CencError('MISSING_BOX', "no samples in 'traf/trun'");
  return ranges;
}

function readSenc(
  trafChildren: readonly Box[],
  track: TrackInfo,
  sampleCount: number,
): SampleEncryption[] | undefined {
  const senc = findBox(trafChildren, 'senc');
  if (track.encryption === undefined) return undefined;
  if (senc === undefined) throw new CencError('MISSING_BOX', "no 'traf/senc' box");
  const { flags, body } = fullBox(senc);
  if (flags & SENC_OVERRIDE_TRACK_ENCRYPTION) {
    throw new CencError('UNSUPPORTED', 'senc boxes that override the track encryption');
  }
  const cursor = new Cursor(body, 'senc');
  const count = cursor.u32();
  if (count !== sampleCount) {
    throw new CencError('BAD_LAYOUT', `senc lists ${count} samples but trun lists ${sampleCount}`);
  }
  const ivSize = track.encryption.perSampleIvSize;
  const result: SampleEncryption[] = [];
  for (let i = 0; i < count; i++) {
    const iv =
      ivSize === 0 ? (track.encryption.constantIv ?? new Uint8Array()) : cursor.bytes(ivSize);
    const subsamples: Subsample[] = [];
    if (flags & SENC_USE_SUBSAMPLES) {
      const subsampleCount = cursor.u16();
      for (let j = 0; j < subsampleCount; j++) {
        subsamples.push({ clearBytes: cursor.u16(), protectedBytes: cursor.u32() });
      }
    }
    result.push({ iv, subsamples });
  }
  return result;
}

function sliceInMdat(segment: Uint8Array, mdats: readonly Box[], offset: number, size: number) {
  const end = offset + size;
  const inside = mdats.some((mdat) => {
    const start = mdat.offset + headerSize(mdat);
    return offset >= start && end <= mdat.offset + mdat.size;
  });
  if (!inside) {
    throw new CencError('BAD_LAYOUT', `sample at bytes ${offset}..${end} lies outside every mdat`);
  }
  return segment.subarray(offset, end);
}

function headerSize(box: Box): number {
  return box.size - box.payload.length;
}
