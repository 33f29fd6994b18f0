import { CencError } from './errors.ts';

/** One ISO-BMFF box; `payload` is the bytes after the (possibly large-size) header. */
export interface Box {
  readonly type: string;
  /** Offset of the box's first header byte within the buffer that was parsed. */
  readonly offset: number;
  readonly size: number;
  readonly payload: Uint8Array;
}

/** Splits `data` into the boxes it holds back to back. */
export function readBoxes(data: Uint8Array, baseOffset = 0): Box[] {
  const view = viewOf(data);
  const boxes: Box[] = [];
  let pos = 0;
  while (pos < data.length) {
    if (data.length - pos < 8) {
      throw new CencError('TRUNCATED', `box header at offset ${baseOffset + pos} is cut short`);
    }
    let size = view.getUint32(pos);
    const type = fourcc(data, pos + 4);
    let headerSize = 8;
    if (size === 1) {
      if (data.length - pos < 16) {
        throw new CencError('TRUNCATED', `large size of box '${type}' is cut short`);
      }
      size = Number(view.getBigUint64(pos + 8));
      headerSize = 16;
    } else if (size === 0) {
      // Size 0 means "to the end of the file", which mdat boxes use when written in one pass.
      size = data.length - pos;
    }
    if (size < headerSize || pos + size > data.length) {
      throw new CencError(
        'TRUNCATED',
        `box '${type}' at offset ${baseOffset + pos} claims ${size} bytes but only ${data.length - pos} remain`,
      );
    }
    boxes.push({
      type,
      offset: baseOffset + pos,
      size,
      payload: data.subarray(pos + headerSize, pos + size),
    });
    pos += size;
  }
  return boxes;
}

export function findBox(boxes: readonly Box[], type: string): Box | undefined {
  return boxes.find((box) => box.type === type);
}

/** Follows a path of box types through nested containers, e.g. `['moov', 'trak', 'mdia']`. */
export function requireBoxPath(boxes: readonly Box[], path: readonly string[]): Box {
  let current: readonly Box[] = boxes;
  let found: Box | undefined;
  for (const type of path) {
    // Only containers on the way are split; the last box may hold fields rather than boxes.
    if (found !== undefined) current = readBoxes(found.payload);
    found = findBox(current, type);
    if (found === undefined) {
      throw new CencError('MISSING_BOX', `no '${path.join('/')}' box (stopped at '${type}')`);
    }
  }
  if (found === undefined) throw new CencError('MISSING_BOX', 'empty box path');
  return found;
}

/** Version and flags of a full box, and its body after those four bytes. */
export function fullBox(box: Box): { version: number; flags: number; body: Uint8Array } {
  if (box.payload.length < 4) {
    throw new CencError('TRUNCATED', `full box '${box.type}' has no version and flags`);
  }
  const word = viewOf(box.payload).getUint32(0);
  return { version: word >>> 24, flags: word & 0xffffff, body: box.payload.subarray(4) };
}

/** A bounds-checked big-endian cursor over a box body. */
export class Cursor {
  readonly #view: DataView;
  readonly #data: Uint8Array;
  readonly #what: string;
  pos = 0;

  constructor(data: Uint8Array, what: string) {
    this.#data = data;
    this.#view = viewOf(data);
    this.#what = what;
  }

  get remaining(): number {
    return this.#data.length - this.pos;
  }

  u8(): number {
    this.#need(1);
    return this.#view.getUint8(this.pos++);
  }

  u16(): number {
    this.#need(2);
    const value = this.#view.getUint16(this.pos);
    this.pos += 2;
    return value;
  }

  u32(): number {
    this.#need(4);
    const value = this.#view.getUint32(this.pos);
    this.pos += 4;
    return value;
  }

  i32(): number {
    this.#need(4);
    const value = this.#view.getInt32(this.pos);
    this.pos += 4;
    return value;
  }

  u64(): number {
    this.#need(8);
    const value = this.#view.getBigUint64(this.pos);
    this.pos += 8;
    if (value > BigInt(Number.MAX_SAFE_INTEGER)) {
      throw new CencError('UNSUPPORTED', `64-bit value in ${this.#what} is too large`);
    }
    return Number(value);
  }

  bytes(length: number): Uint8Array {
    this.#need(length);
    const value = this.#data.subarray(this.pos, this.pos + length);
    this.pos += length;
    return value;
  }

  skip(length: number): void {
    this.#need(length);
    this.pos += length;
  }

  #need(length: number): void {
    if (this.pos + length > this.#data.length) {
      throw new CencError('TRUNCATED', `${this.#what} is cut short`);
    }
  }
}

export function toHex(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex');
}

function fourcc(data: Uint8Array, pos: number): string {
  return String.fromCharCode(
    data[pos] ?? 0,
    data[pos + 1] ?? 0,
    data[pos + 2] ?? 0,
    data[pos + 3] ?? 0,
  );
}

function viewOf(data: Uint8Array): DataView {
  return new DataView(data.buffer, data.byteOffset, data.byteLength);
}
