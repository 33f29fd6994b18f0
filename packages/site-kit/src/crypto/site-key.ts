import { SiteKitError } from '../errors.ts';
import { utf8Bytes } from '../encoding/utf8.ts';

/** A site key as the administration site shows it (32 characters) or as 32 raw bytes. */
export type SiteKeyInput = string | Uint8Array;

/**
 * Length of a site key: 32 bytes (or 32 one-byte characters as the administration site shows it).
 */
export const SITE_KEY_BYTES = 32;

/** Validates a site key: its 32 bytes, or INVALID_SITE_KEY saying what is wrong. */
export function siteKeyBytes(siteKey: SiteKeyInput): Uint8Array {
  if (typeof siteKey === 'string') return checkLength(utf8Bytes(siteKey), 'characters');
  if (siteKey instanceof Uint8Array) return checkLength(siteKey, 'bytes');
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
