import { hash, timingSafeEqual } from 'node:crypto';
import { hashInput, type HashedFields, type HashEncoding } from './hash-input.ts';

export { HASH_ENCODINGS, type HashedFields, type HashEncoding } from './hash-input.ts';

// The 64 ASCII bytes of the hex text, written in place rather than into a new Buffer per token.
let hexBytes: Buffer | undefined;

/** hash = base64(sha256(access key + drm_type + site_id + user_id + cid + token + timestamp)), S as UTF-8. */
export function tokenHash(accessKey: string, f: HashedFields, encoding: HashEncoding): string {
  const s = hashInput(accessKey, f);
  if (encoding === 'raw-digest') return hash('sha256', s, 'base64');
  hexBytes ??= Buffer.alloc(64);
  hexBytes.write(hash('sha256', s, 'hex').toUpperCase(), 0, 'latin1');
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
