import { createSecretKey, type KeyObject } from 'node:crypto';
import { siteKeyBytes, type SiteKeyInput } from './site-key.ts';

// A KeyObject made once makes createCipheriv about 4x cheaper than a raw key Buffer; string keys seen
// by the one-shot encrypt/decrypt functions are kept here so repeated calls get the same saving.
const cache = new Map<string, KeyObject>();
const CACHE_LIMIT = 16;

/** Validates a site key and turns it into the node:crypto key object the cipher uses. */
export function toAesKey(siteKey: SiteKeyInput): KeyObject {
  if (typeof siteKey !== 'string') return createSecretKey(siteKeyBytes(siteKey));
  const cached = cache.get(siteKey);
  if (cached) return cached;
  const key = createSecretKey(siteKeyBytes(siteKey));
  if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value as string);
  cache.set(siteKey, key);
  return key;
}
