import { Cursor, fullBox, readBoxes, requireBoxPath, toHex, findBox } from './boxes.ts';
import type { Box } from './boxes.ts';
import { CencError } from './errors.ts';

/** What a track's `tenc` box says about its encryption. */
export interface TrackEncryption {
  /** `schm` scheme type, e.g. 'cenc' or 'cbcs'. */
  readonly scheme: string;
  /** Default key ID as 32 lowercase hex digits. */
  readonly kid: string;
  /** Per-sample IV size in bytes (0, 8 or 16); 0 means a constant IV. */
  readonly perSampleIvSize: number;
  readonly constantIv: Uint8Array | undefined;
}

export interface TrackInfo {
  readonly trackId: number;
  /** `hdlr` handler type: 'vide', 'soun', ... */
  readonly handler: string;
  readonly timescale: number;
  /** Codec of the samples: `frma` of a protected entry, else the sample entry's own type. */
  readonly codec: string;
  readonly encryption: TrackEncryption | undefined;
  /** Size in bytes of the NAL unit length prefix (H.264/H.265 only). */
  readonly nalLengthSize: number | undefined;
  /** `trex` defaults used when a fragment states no sample size or duration. */
  readonly defaultSampleSize: number;
  readonly defaultSampleDuration: number;
}

export interface InitSegment {
  readonly tracks: readonly TrackInfo[];
}

// Bytes of fixed fields before the child boxes of a sample entry (ISO/IEC 14496-12, 12.1 / 12.2).
const VISUAL_ENTRY_FIELDS = 78;
const AUDIO_ENTRY_FIELDS = 28;

export function readInitSegment(init: Uint8Array): InitSegment {
  const top = readBoxes(init);
  const moov = requireBoxPath(top, ['moov']);
  const moovChildren = readBoxes(moov.payload);
  const trexById = readTrexDefaults(moovChildren);
  const tracks = moovChildren
    .filter((box) => box.type === 'trak')
    .map((trak) => readTrack(trak, trexById));
  if (tracks.length === 0) throw new CencError('MISSING_BOX', "no 'moov/trak' box");
  return { tracks };
}

/** The default KID of the first protected track, as 32 lowercase hex digits. */
export function readDefaultKid(init: Uint8Array): string {
  const track = readInitSegment(init).tracks.find((t) => t.encryption !== undefined);
  if (track?.encryption === undefined) {
    throw new CencError('NOT_ENCRYPTED', 'the init segment has no protected sample entry');
  }
  return track.encryption.kid;
}

function readTrack(trak: Box, trexById: ReadonlyMap<number, Trex>): TrackInfo {
  const children = readBoxes(trak.payload);
  const trackId = readTrackId(requireBoxPath(children, ['tkhd']));
  const handler = readHandler(requireBoxPath(children, ['mdia', 'hdlr']));
  const timescale = readTimescale(requireBoxPath(children, ['mdia', 'mdhd']));
  const stsd = requireBoxPath(children, ['mdia', 'minf', 'stbl', 'stsd']);
  const entry = readFirstSampleEntry(stsd);
  const entryChildren = readEntryChildren(entry, handler);
  const sinf = findBox(entryChildren, 'sinf');
  const trex = trexById.get(trackId);
  return {
    trackId,
    handler,
    timescale,
    codec: sinf === undefined ? entry.type : readOriginalFormat(sinf),
    encryption: sinf === undefined ? undefined : readSinf(sinf),
    nalLengthSize: readNalLengthSize(entryChildren),
    defaultSampleSize: trex?.defaultSampleSize ?? 0,
    defaultSampleDuration: trex?.defaultSampleDuration ?? 0,
  };
}

function readTrackId(tkhd: Box): number {
  const { version, body } = fullBox(tkhd);
  const cursor = new Cursor(body, 'tkhd');
  cursor.skip(version === 1 ? 16 : 8);
  return cursor.u32();
}

function readHandler(hdlr: Box): string {
  const cursor = new Cursor(fullBox(hdlr).body, 'hdlr');
  cursor.skip(4);
  return String.fromCharCode(...cursor.bytes(4));
}

function readTimescale(mdhd: Box): number {
  const { version, body } = fullBox(mdhd);
  const cursor = new Cursor(body, 'mdhd');
  cursor.skip(version === 1 ? 16 : 8);
  return cursor.u32();
}

function readFirstSampleEntry(stsd: Box): Box {
  const body = fullBox(stsd).body;
  const count = new Cursor(body, 'stsd').u32();
  const entries = readBoxes(body.subarray(4));
  const first = entries[0];
  if (count === 0 || first === undefined) throw new CencError('MISSING_BOX', 'stsd has no entry');
  return first;
}

function readEntryChildren(entry: Box, handler: string): Box[] {
  if (handler === 'vide') return readBoxes(entry.payload.subarray(VISUAL_ENTRY_FIELDS));
  if (handler === 'soun') {
    const cursor = new Cursor(entry.payload, `sample entry '${entry.type}'`);
    cursor.skip(8);
    const version = cursor.u16();
    // QuickTime sound description versions 1 and 2 append 16 and 36 bytes of fields.
    const extra = version === 1 ? 16 : version === 2 ? 36 : 0;
    return readBoxes(entry.payload.subarray(AUDIO_ENTRY_FIELDS + extra));
  }
  throw new CencError('UNSUPPORTED', `tracks with handler '${handler}' are not supported`);
}

function readOriginalFormat(sinf: Box): string {
  const frma = requireBoxPath(readBoxes(sinf.payload), ['frma']);
  return String.fromCharCode(...new Cursor(frma.payload, 'frma').bytes(4));
}

function readSinf(sinf: Box): TrackEncryption {
  const children = readBoxes(sinf.payload);
  const schmCursor = new Cursor(fullBox(requireBoxPath(children, ['schm'])).body, 'schm');
  const scheme = String.fromCharCode(...schmCursor.bytes(4));
  const tenc = requireBoxPath(children, ['schi', 'tenc']);
  const cursor = new Cursor(fullBox(tenc).body, 'tenc');
  cursor.skip(2);
  const isProtected = cursor.u8();
  const perSampleIvSize = cursor.u8();
  const kid = toHex(cursor.bytes(16));
  const constantIv =
    isProtected === 1 && perSampleIvSize === 0 ? cursor.bytes(cursor.u8()) : undefined;
  return { scheme, kid, perSampleIvSize, constantIv };
}

function readNalLengthSize(entryChildren: readonly Box[]): number | undefined {
  const config = findBox(entryChildren, 'avcC') ?? findBox(entryChildren, 'hvcC');
  if (config === undefined) return undefined;
  const cursor = new Cursor(config.payload, config.type);
  // avcC keeps lengthSizeMinusOne in byte 4, hvcC in byte 21; both in the two low bits.
  cursor.skip(config.type === 'avcC' ? 4 : 21);
  return (cursor.u8() & 0b11) + 1;
}

interface Trex {
  readonly defaultSampleDuration: number;
  readonly defaultSampleSize: number;
}

function readTrexDefaults(moovChildren: readonly Box[]): Map<number, Trex> {
  const result = new Map<number, Trex>();
  const mvex = findBox(moovChildren, 'mvex');
  if (mvex === undefined) return result;
  for (const trex of readBoxes(mvex.payload).filter((box) => box.type === 'trex')) {
    const cursor = new Cursor(fullBox(trex).body, 'trex');
    const trackId = cursor.u32();
    cursor.skip(4);
    const defaultSampleDuration = cursor.u32();
    const defaultSampleSize = cursor.u32();
    result.set(trackId, { defaultSampleDuration, defaultSampleSize });
  }
  return result;
}
