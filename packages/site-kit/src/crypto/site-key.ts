import { createSecretKey, type KeyObject } from 'node:crypto';
import { SiteKitError } from '../errors.ts';

/** A site key as the administration site shows it (32 characters) or as 32 raw bytes. */
export type SiteKeyInput = string | Uint8Array;

export const SITE_KEY_BYTES = 32;

// A KeyObject made once makes createCipheriv about 4x cheaper than a raw key Buffer; string keys seen
// by the one-shot encrypt/decrypt functions are kept here so repeated calls get the same saving.
const cache = new Map<string, KeyObject>();
const CACHE_LIMIT = 16;

/** Validates a site key and turns it into the AES-256 key object used by the cipher. */
export function toAesKey(siteKey: SiteKeyInput): KeyObject {
  if (typeof siteKey === 'string') {
    const cached = cache.get(siteKey);
    if (cached) return cached;
    const key = createSecretKey(checkLength(Buffer.from(siteKey, 'utf8'), 'characters'));
    if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value as string);
    cache.set(siteKey, key);
    return key;
  }
  if (siteKey instanceof Uint8Array) return createSecretKey(checkLength(siteKey, 'bytes'));
  throw new SiteKitError(
    'INVALID_SITE_KEY',
    `The site key must be a string or a Uint8Array, got ${typeof siteKey}.`,
  );
}

function checkLength(bytes: Uint8Array, unit: 'characters' | 'bytes'): Uint8Array {
  if (bytes.length !== SITE_KEY_BYTES) {
    const hint =
      unit === 'characters'
        ? ' Use the 32-character site key from the administration site; a non-ASCII character counts as several bytes.'
        : '';
    throw new SiteKitError(
      'INVALID_SITE_KEY',
      `The site key must be exactly ${SITE_KEY_BYTES} bytes for AES-256, got ${bytes.length}.${hint}`,
    );
  }
  return bytes;
}
