import { createDecipheriv, createSecretKey } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import { CencError } from './errors.ts';
import { readInitSegment } from './init-segment.ts';
import type { InitSegment, TrackInfo } from './init-segment.ts';
import { readFragmentSamples } from './media-segment.ts';
import type { FragmentSample } from './media-segment.ts';

export interface DecryptedSegment {
  /** Default KID of the track (32 lowercase hex digits). */
  readonly kid: string;
  readonly trackId: number;
  readonly samples: Uint8Array[];
}

/**
 * Decrypts every sample of a 'cenc' (AES-128-CTR) media segment. Subsample layouts from `senc` are
 * honoured: clear ranges are copied, protected ranges of one sample form a single CTR stream.
 */
export function decryptSegment(
  init: Uint8Array,
  segment: Uint8Array,
  key: Uint8Array,
): DecryptedSegment {
  if (key.length !== 16) {
    throw new CencError('INVALID_KEY', `a cenc content key has 16 bytes, got ${key.length}`);
  }
  const track = protectedTrack(readInitSegment(init));
  const encryption = track.encryption;
  if (encryption === undefined) throw new CencError('NOT_ENCRYPTED', 'unreachable');
  if (encryption.scheme !== 'cenc') {
    throw new CencError('UNSUPPORTED', `scheme '${encryption.scheme}' (only 'cenc' is supported)`);
  }
  // One KeyObject for the whole segment: cheaper than passing the raw key to every decipher.
  const keyObject = createSecretKey(key);
  const samples = readFragmentSamples(segment, track).map((sample) =>
    decryptSample(sample, keyObject),
  );
  return { kid: encryption.kid, trackId: track.trackId, samples };
}

/** The samples of a clear (unencrypted) media segment, as views into `segment`. */
export function readClearSamples(init: Uint8Array, segment: Uint8Array): Uint8Array[] {
  const track = firstTrack(readInitSegment(init));
  return readFragmentSamples(segment, track).map((sample) => sample.data);
}

function decryptSample(sample: FragmentSample, key: KeyObject): Uint8Array {
  const { data, encryption } = sample;
  if (encryption === undefined) throw new CencError('MISSING_BOX', 'sample has no senc entry');
  const decipher = createDecipheriv('aes-128-ctr', key, counterBlock(encryption.iv));
  if (encryption.subsamples.length === 0) return new Uint8Array(decipher.update(data));
  const out = new Uint8Array(data);
  let pos = 0;
  for (const { clearBytes, protectedBytes } of encryption.subsamples) {
    pos += clearBytes;
    const end = pos + protectedBytes;
    if (end > data.length) {
      throw new CencError(
        'BAD_LAYOUT',
        `subsamples cover ${end} bytes of a ${data.length}-byte sample`,
      );
    }
    out.set(decipher.update(data.subarray(pos, end)), pos);
    pos = end;
  }
  if (pos !== data.length) {
    throw new CencError(
      'BAD_LAYOUT',
      `subsamples cover ${pos} bytes of a ${data.length}-byte sample`,
    );
  }
  return out;
}

/** An 8-byte IV is the high half of the counter block; the block counter starts at zero. */
function counterBlock(iv: Uint8Array): Uint8Array {
  if (iv.length !== 8 && iv.length !== 16) {
    throw new CencError('UNSUPPORTED', `IV size ${iv.length} (cenc uses 8 or 16 bytes)`);
  }
  const block = new Uint8Array(16);
  block.set(iv);
  return block;
}

function protectedTrack(init: InitSegment): TrackInfo {
  const track = init.tracks.find((t) => t.encryption !== undefined);
  if (track === undefined) {
    throw new CencError('NOT_ENCRYPTED', 'the init segment has no protected sample entry');
  }
  return track;
}

function firstTrack(init: InitSegment): TrackInfo {
  const track = init.tracks[0];
  if (track === undefined) throw new CencError('MISSING_BOX', "no 'moov/trak' box");
  return track;
}
