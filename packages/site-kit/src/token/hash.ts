import { hash, timingSafeEqual } from 'node:crypto';
import { hashInput, type HashedFields, type HashEncoding } from './hash-input.ts';

export { HASH_ENCODINGS, type HashedFields, type HashEncoding } from './hash-input.ts';

// The 64 ASCII bytes of the hex text, written in place rather than into a new Buffer per token.
let hexBytes: Buffer | undefined;
// The ASCII code of the upper-case digit, by the code of the lower-case one node:crypto writes: a
// loop over 64 characters costs less than toUpperCase() and Buffer.write() of the text. Made on first
// use.
let upperHex: Uint8Array | undefined;

function upperHexTable(): Uint8Array {
  const table = new Uint8Array(128);
  for (const digit of '0123456789abcdef')
    table[digit.charCodeAt(0)] = digit.toUpperCase().charCodeAt(0);
  return table;
}

/** hash = base64(sha256(access key + drm_type + site_id + user_id + cid + token + timestamp)), S as UTF-8. */
export function tokenHash(accessKey: string, f: HashedFields, encoding: HashEncoding): string {
  const s = hashInput(accessKey, f);
  if (encoding === 'raw-digest') return hash('sha256', s, 'base64');
  hexBytes ??= Buffer.alloc(64);
  const hex = hash('sha256', s, 'hex');
  upperHex ??= upperHexTable();
  for (let i = 0; i < 64; i++) hexBytes[i] = upperHex[hex.charCodeAt(i)] as number;
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
