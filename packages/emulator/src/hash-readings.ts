import { DEFAULT_DRM_TYPE } from '@multidrm/site-kit';
import { bytesToBase64, bytesToHex, utf8Bytes } from './web/bytes.ts';
import { sameText, sha256 } from './web/crypto.ts';

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
export async function hashReadings(
  accessKey: string,
  f: HashedTokenFields,
): Promise<'raw-digest' | 'hex-text' | 'none'> {
  const s =
    accessKey +
    (f.drm_type ?? DEFAULT_DRM_TYPE) +
    f.site_id +
    f.user_id +
    f.cid +
    f.data +
    f.timestamp;
  const digest = await sha256(s);
  const raw = bytesToBase64(digest);
  const hexText = bytesToBase64(utf8Bytes(bytesToHex(digest).toUpperCase()));
  if (sameText(raw, f.hash)) return 'raw-digest';
  if (sameText(hexText, f.hash)) return 'hex-text';
  return 'none';
}
