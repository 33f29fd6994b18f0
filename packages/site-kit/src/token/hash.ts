import { hash, timingSafeEqual } from 'node:crypto';
import { hashInput, type HashedFields, type HashEncoding } from './hash-input.ts';

export { HASH_ENCODINGS, type HashedFields, type HashEncoding } from './hash-input.ts';

// The 64 ASCII bytes of the hex text, written in place rather than into a new Buffer per token, two
// at a time: `pairs[byte]` is the byte's two upper-case digits as one 16-bit unit of `hexPairs` (the
// digest read as latin1, one character a byte, is half the text node:crypto's hex would be, and
// needs no case change). Made on first use.
let hexBytes: Buffer | undefined;
let hexPairs: Uint16Array | undefined;
let pairs: Uint16Array | undefined;

function pairTable(): Uint16Array {
  const digits = '0123456789ABCDEF';
  // Laid out through a byte view, so that the table holds for either byte order.
  const bytes = new Uint8Array(512);
  for (let b = 0; b < 256; b++) {
    bytes[2 * b] = digits.charCodeAt(b >> 4);
    bytes[2 * b + 1] = digits.charCodeAt(b & 15);
  }
  return new Uint16Array(bytes.buffer);
}

/** hash = base64(sha256(access key + drm_type + site_id + user_id + cid + token + timestamp)), S as UTF-8. */
export function tokenHash(accessKey: string, f: HashedFields, encoding: HashEncoding): string {
  const s = hashInput(accessKey, f);
  if (encoding === 'raw-digest') return hash('sha256', s, 'base64');
  if (hexBytes === undefined) {
    hexBytes = Buffer.alloc(64);
    hexPairs = new Uint16Array(hexBytes.buffer, hexBytes.byteOffset, 32);
    pairs = pairTable();
  }
  const digest = hash('sha256', s, 'binary');
  const out = hexPairs as Uint16Array;
  const table = pairs as Uint16Array;
  for (let i = 0; i < 32; i++) out[i] = table[digest.charCodeAt(i)] as number;
  return hexBytes.toString('base64');
}

/** Constant-time comparison of two base64 hashes; unequal lengths compare a value with itself. */
export function hashesEqual(expected: string, received: string): boolean {
  const a = Buffer.from(expected, 'utf8');
  const b = Buffer.from(received, 'utf8');
  if (a.length !== b.length) {
    timingSafeEqual(a, a);
    return false;
  }
  return timingSafeEqual(a, b);
}
