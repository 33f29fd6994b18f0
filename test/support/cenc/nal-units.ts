import { CencError } from './errors.ts';

export interface NalUnit {
  /** nal_unit_type of H.264 (low 5 bits of the first byte). */
  readonly type: number;
  readonly size: number;
}

/**
 * Splits a length-prefixed H.264 sample into its NAL units. Throws `BAD_LAYOUT` if the lengths do
 * not add up to the sample or a unit has its forbidden_zero_bit set.
 */
export function readAvcNalUnits(sample: Uint8Array, lengthSize = 4): NalUnit[] {
  const units: NalUnit[] = [];
  let pos = 0;
  while (pos < sample.length) {
    if (pos + lengthSize > sample.length) {
      throw new CencError('BAD_LAYOUT', `NAL length at byte ${pos} is cut short`);
    }
    let size = 0;
    for (let i = 0; i < lengthSize; i++) size = size * 256 + (sample[pos + i] ?? 0);
    pos += lengthSize;
    const header = sample[pos];
    if (size === 0 || header === undefined || pos + size > sample.length) {
      throw new CencError('BAD_LAYOUT', `NAL unit of ${size} bytes at byte ${pos} does not fit`);
    }
    if (header & 0x80)
      throw new CencError('BAD_LAYOUT', `NAL unit at byte ${pos} has forbidden bit`);
    units.push({ type: header & 0x1f, size });
    pos += size;
  }
  return units;
}
