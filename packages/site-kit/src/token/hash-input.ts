/**
 * How the SHA-256 digest becomes the token's `hash`. The spec's worked example base64-encodes the
 * UPPERCASE hex text of the digest ('hex-text'); other public implementations encode the 32 raw
 * digest bytes ('raw-digest').
 */
export type HashEncoding = 'hex-text' | 'raw-digest';

/** Every {@link HashEncoding}: what credentials accept, and what a verifier tries to explain a hash mismatch. */
export const HASH_ENCODINGS: readonly HashEncoding[] = ['hex-text', 'raw-digest'];

export interface HashedFields {
  drm_type: string;
  site_id: string;
  user_id: string;
  cid: string;
  token: string;
  timestamp: string;
}

/** S of hash = base64(sha256(S)): access key + drm_type + site_id + user_id + cid + token + timestamp. */
export function hashInput(accessKey: string, f: HashedFields): string {
  return accessKey + f.drm_type + f.site_id + f.user_id + f.cid + f.token + f.timestamp;
}

/**
 * Compares two texts without an early exit; texts of unequal length compare a value with itself, so
 * the time depends on the expected length only. For runtimes without node:crypto's timingSafeEqual.
 */
export function textsEqual(expected: string, received: string): boolean {
  const other = expected.length === received.length ? received : expected;
  let diff = expected.length ^ received.length;
  for (let i = 0; i < expected.length; i++) diff |= expected.charCodeAt(i) ^ other.charCodeAt(i);
  return diff === 0;
}
