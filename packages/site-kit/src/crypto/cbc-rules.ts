import { SiteKitError } from '../errors.ts';

// What both AES implementations (node:crypto and Web Crypto) share: the block size, the padding
// check, and the errors a message that does not decrypt gets.

export const BLOCK = 16;

/**
 * The length of the text before a PKCS7 padding, checked without an early exit: every byte of the
 * last block is looked at whatever the outcome, and a bad padding keeps the whole length, so the
 * caller's next steps cost the same. `plain` is a non-empty multiple of 16 bytes.
 */
export function unpaddedLength(plain: Uint8Array): { length: number; padded: boolean } {
  const pad = plain[plain.length - 1] as number;
  let bad = Number(pad === 0) | Number(pad > BLOCK);
  for (let i = 1; i <= BLOCK; i++) {
    // Only the bytes inside the padding must equal it.
    bad |= Number(i <= pad) & Number(plain[plain.length - i] !== pad);
  }
  return { length: plain.length - (bad ? 0 : pad), padded: bad === 0 };
}

/** A decrypted message and whether it came out whole. */
export interface Opened {
  text: string;
  /** True when the padding was right and the text is UTF-8; false for every kind of damage alike. */
  intact: boolean;
}

/** Only the form of the ciphertext fails before decryption: both are visible in the text itself. */
export function checkBlocks(bytes: Uint8Array): Uint8Array {
  if (bytes.length === 0 || bytes.length % BLOCK !== 0) {
    throw new SiteKitError(
      'DECRYPT_FAILED',
      `The ciphertext is ${bytes.length} bytes; AES-256-CBC output is a non-zero multiple of ${BLOCK} bytes, so it was cut or is not an encrypted message.`,
    );
  }
  return bytes;
}

export function checkText(value: unknown, name: string): void {
  if (typeof value !== 'string') {
    throw new SiteKitError('INVALID_INPUT', `The ${name} must be a string, got ${typeof value}.`);
  }
}

/** The one failure of a decryption that did not come out whole, whatever the damage. */
export function damaged(): SiteKitError {
  return new SiteKitError(
    'DECRYPT_FAILED',
    'Decryption failed (bad PKCS7 padding, or not UTF-8 text): the site key is wrong or the ciphertext was changed.',
  );
}
