import { hash, timingSafeEqual } from 'node:crypto';

/**
 * How the SHA-256 digest becomes the token's `hash`. The spec's worked example base64-encodes the
 * UPPERCASE hex text of the digest ('hex-text'); other public implementations encode the 32 raw
 * digest bytes ('raw-digest').
 */
export type HashEncoding = 'hex-text' | 'raw-digest';

export const HASH_ENCODINGS: readonly HashEncoding[] = ['hex-text', 'raw-digest'];

export interface HashedFields {
  drm_type: string;
  site_id: string;
  user_id: string;
  cid: string;
  token: string;
  timestamp: string;
}

/** hash = base64(sha256(access key + drm_type + site_id + user_id + cid + token + timestamp)), S as UTF-8. */
export function tokenHash(accessKey: string, f: HashedFields, encoding: HashEncoding): string {
  const s = accessKey + f.drm_type + f.site_id + f.user_id + f.cid + f.token + f.timestamp;
  if (encoding === 'raw-digest') return hash('sha256', s, 'base64');
  return Buffer.from(hash('sha256', s, 'hex').toUpperCase(), 'latin1').toString('base64');
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
