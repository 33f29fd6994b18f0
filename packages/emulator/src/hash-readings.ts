import { hash, timingSafeEqual } from 'node:crypto';
import { DEFAULT_DRM_TYPE } from '@multidrm/site-kit';

export interface HashedTokenFields {
  drm_type?: string;
  site_id: string;
  user_id: string;
  cid: string;
  /** v1 `token`, v2 `policy`. */
  data: string;
  timestamp: string;
  hash: string;
}

/**
 * Which reading of the token hash matches, for the explanation of a hash mismatch: 'raw-digest'
 * (base64 of the 32 digest bytes; every v2 token), 'hex-text' (base64 of the uppercase hex text;
 * the spec's v1 example), or 'none' (another access key, or a member changed after hashing).
 */
export function hashReadings(
  accessKey: string,
  f: HashedTokenFields,
): 'raw-digest' | 'hex-text' | 'none' {
  const s =
    accessKey +
    (f.drm_type ?? DEFAULT_DRM_TYPE) +
    f.site_id +
    f.user_id +
    f.cid +
    f.data +
    f.timestamp;
  const raw = hash('sha256', s, 'base64');
  const hexText = Buffer.from(hash('sha256', s, 'hex').toUpperCase(), 'latin1').toString('base64');
  if (same(raw, f.hash)) return 'raw-digest';
  if (same(hexText, f.hash)) return 'hex-text';
  return 'none';
}

function same(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}
