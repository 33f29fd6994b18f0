import { isUtf8 } from 'node:buffer';
import { createCipheriv, createDecipheriv, type KeyObject } from 'node:crypto';
import { SiteKitError } from '../errors.ts';
import { decodeBase64 } from './base64.ts';
import { toAesKey, type SiteKeyInput } from './site-key.ts';

// Fixed by the spec for gateway messages and the token field alike.
const IV = Buffer.from('0123456789abcdef', 'ascii');
const BLOCK = 16;
const utf8 = new TextDecoder('utf-8', { fatal: true });

/** AES-256-CBC with the spec's fixed IV and PKCS7 padding: base64 of the encrypted UTF-8 text. */
export function encrypt(plaintext: string, siteKey: SiteKeyInput): string {
  if (typeof plaintext !== 'string') {
    throw new SiteKitError(
      'INVALID_INPUT',
      `The plaintext must be a string, got ${typeof plaintext}.`,
    );
  }
  return encryptWithKey(plaintext, toAesKey(siteKey));
}

/** `encrypt` with a key already checked by `toAesKey`. */
export function encryptWithKey(plaintext: string, key: KeyObject): string {
  const cipher = createCipheriv('aes-256-cbc', key, IV);
  return Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]).toString('base64');
}

/** Reverses `encrypt`. Wrong keys and damaged ciphertexts fail with DECRYPT_FAILED, never an OpenSSL text. */
export function decrypt(ciphertext: string, siteKey: SiteKeyInput): string {
  return decryptWithKey(ciphertext, toAesKey(siteKey));
}

/**
 * Decrypts without failing on the padding: the PKCS7 check runs over the last block without an
 * early exit and its outcome is only reported, so a caller can treat a bad padding exactly like
 * a bad plaintext (same path, same cost). The spec's AES-CBC has a fixed IV and no MAC; any
 * observable difference between the two is a padding oracle that decrypts captured messages.
 * Only the base64 form and the length (both visible in the ciphertext itself) fail early.
 */
export function openWithKey(ciphertext: string, key: KeyObject): { text: string; intact: boolean } {
  const bytes = decodeBase64(ciphertext, 'The ciphertext');
  if (bytes.length === 0 || bytes.length % BLOCK !== 0) {
    throw new SiteKitError(
      'DECRYPT_FAILED',
      `The ciphertext is ${bytes.length} bytes; AES-256-CBC output is a non-zero multiple of ${BLOCK} bytes, so it was cut or is not an encrypted message.`,
    );
  }
  const decipher = createDecipheriv('aes-256-cbc', key, IV).setAutoPadding(false);
  const plain = Buffer.concat([decipher.update(bytes), decipher.final()]);
  const pad = plain[plain.length - 1] as number;
  let bad = Number(pad === 0) | Number(pad > BLOCK);
  for (let i = 1; i <= BLOCK; i++) {
    // Every byte of the last block is looked at; only those inside the padding must equal it.
    bad |= Number(i <= pad) & Number(plain[plain.length - i] !== pad);
  }
  const body = plain.subarray(0, plain.length - (bad ? 0 : pad));
  return { text: body.toString('utf8'), intact: bad === 0 && isUtf8(body) };
}

/** `decrypt` with a key already checked by `toAesKey`. */
export function decryptWithKey(ciphertext: string, key: KeyObject): string {
  if (typeof ciphertext !== 'string') {
    throw new SiteKitError(
      'INVALID_INPUT',
      `The ciphertext must be a string, got ${typeof ciphertext}.`,
    );
  }
  const bytes = decodeBase64(ciphertext, 'The ciphertext');
  if (bytes.length === 0 || bytes.length % BLOCK !== 0) {
    throw new SiteKitError(
      'DECRYPT_FAILED',
      `The ciphertext is ${bytes.length} bytes; AES-256-CBC output is a non-zero multiple of ${BLOCK} bytes, so it was cut or is not an encrypted message.`,
    );
  }
  let plain: Buffer;
  try {
    const decipher = createDecipheriv('aes-256-cbc', key, IV);
    plain = Buffer.concat([decipher.update(bytes), decipher.final()]);
  } catch {
    throw new SiteKitError(
      'DECRYPT_FAILED',
      'Decryption failed (bad PKCS7 padding): the site key is wrong or the ciphertext was changed.',
    );
  }
  try {
    return utf8.decode(plain);
  } catch {
    throw new SiteKitError(
      'DECRYPT_FAILED',
      'Decryption gave bytes that are not UTF-8 text: the site key is probably wrong.',
    );
  }
}
