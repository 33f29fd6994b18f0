import { isUtf8 } from 'node:buffer';
import type { KeyObject } from 'node:crypto';
import { decodeBase64 } from '../encoding/base64.ts';
import { toAesKey } from './aes-key.ts';
import { cbcDecryptRaw, cbcEncrypt, cbcEncryptBytes } from './cbc-context.ts';
import { checkBlocks, checkText, damaged, unpaddedLength, type Opened } from './cbc-rules.ts';
import type { SiteKeyInput } from './site-key.ts';

/** AES-256-CBC with the spec's fixed IV and PKCS7 padding: base64 of the encrypted UTF-8 text. */
export function encrypt(plaintext: string, siteKey: SiteKeyInput): string {
  checkText(plaintext, 'plaintext');
  return encryptWithKey(plaintext, toAesKey(siteKey));
}

/** `encrypt` with a key already checked by `toAesKey`. */
export function encryptWithKey(plaintext: string, key: KeyObject): string {
  return cbcEncrypt(key, plaintext).toString('base64');
}

/** `encryptWithKey` of the text whose UTF-8 bytes are `bytes[0, length)`. */
export function encryptBytesWithKey(bytes: Uint8Array, length: number, key: KeyObject): string {
  return cbcEncryptBytes(key, bytes, length).toString('base64');
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
export function openWithKey(ciphertext: string, key: KeyObject): Opened {
  const plain = cbcDecryptRaw(key, checkBlocks(decodeBase64(ciphertext, 'The ciphertext')));
  const { length, padded } = unpaddedLength(plain);
  const body = plain.subarray(0, length);
  // Both checks run for every message: `padded && isUtf8(body)` would skip the UTF-8 check on a bad
  // padding, and its ~5 us told a right padding guess apart over HTTP (a timing padding oracle).
  const utf8 = isUtf8(body);
  return { text: body.toString('utf8'), intact: padded && utf8 };
}

/** `decrypt` with a key already checked by `toAesKey`; the padding is checked as in `openWithKey`. */
export function decryptWithKey(ciphertext: string, key: KeyObject): string {
  checkText(ciphertext, 'ciphertext');
  const opened = openWithKey(ciphertext, key);
  if (!opened.intact) throw damaged();
  return opened.text;
}
