/**
 * A small, dependency-free ISO-BMFF reader and 'cenc' sample decryptor for tests: it proves that the
 * sample content really is encrypted with the key in keys.json, without a browser.
 */
export { CencError } from './errors.ts';
export type { CencErrorCode } from './errors.ts';
export { readBoxes } from './boxes.ts';
export type { Box } from './boxes.ts';
export { readInitSegment, readDefaultKid } from './init-segment.ts';
export type { InitSegment, TrackInfo, TrackEncryption } from './init-segment.ts';
export { readFragmentSamples } from './media-segment.ts';
export type { FragmentSample, SampleEncryption, Subsample } from './media-segment.ts';
export { decryptSegment, readClearSamples } from './decrypt.ts';
export type { DecryptedSegment } from './decrypt.ts';
export { readAvcNalUnits } from './nal-units.ts';
export type { NalUnit } from './nal-units.ts';
