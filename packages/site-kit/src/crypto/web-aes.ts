import { bytesToBase64, decodeBase64 } from '../encoding/base64.ts';
import { isUtf8Of, utf8Bytes, utf8Text } from '../encoding/utf8.ts';
import { BLOCK, checkBlocks, unpaddedLength, type Opened } from './cbc-rules.ts';
import { siteKeyBytes, type SiteKeyInput } from './site-key.ts';

// The Web Crypto twin of aes.ts, for runtimes without node:crypto (Workers, edge functions,
// browsers). Same algorithm, same bytes: AES-256-CBC, the spec's IV, PKCS7.

const IV_TEXT = '0123456789abcdef';

/** Web Crypto's key type, named without depending on which lib declares it. */
type CryptoKeyObject = Awaited<ReturnType<typeof crypto.subtle.importKey>>;

/** A checked site key; the CryptoKey is imported on first use (Web Crypto imports are async). */
export interface WebAesKey {
  readonly bytes: Uint8Array;
  cryptoKey?: Promise<CryptoKeyObject>;
}

// String keys seen by the one-shot functions are kept, so that repeated calls import them once.
const cache = new Map<string, WebAesKey>();
const CACHE_LIMIT = 16;

/** Validates the site key now (INVALID_SITE_KEY), so that handlers fail when they are made. */
export function toWebAesKey(siteKey: SiteKeyInput): WebAesKey {
  if (typeof siteKey !== 'string') return { bytes: siteKeyBytes(siteKey).slice() };
  const cached = cache.get(siteKey);
  if (cached !== undefined) return cached;
  const key: WebAesKey = { bytes: siteKeyBytes(siteKey) };
  if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value as string);
  cache.set(siteKey, key);
  return key;
}

function cryptoKeyOf(key: WebAesKey): Promise<CryptoKeyObject> {
  const bytes = key.bytes as Uint8Array<ArrayBuffer>;
  key.cryptoKey ??= crypto.subtle.importKey('raw', bytes, 'AES-CBC', false, ['encrypt', 'decrypt']);
  return key.cryptoKey;
}

const iv = () => utf8Bytes(IV_TEXT) as Uint8Array<ArrayBuffer>;

/** base64 of AES-256-CBC(text): Web Crypto pads with PKCS7 itself, exactly as node:crypto does. */
export async function webEncrypt(text: string, key: WebAesKey): Promise<string> {
  const cipher = await crypto.subtle.encrypt(
    { name: 'AES-CBC', iv: iv() },
    await cryptoKeyOf(key),
    utf8Bytes(text) as Uint8Array<ArrayBuffer>,
  );
  return bytesToBase64(new Uint8Array(cipher));
}

/**
 * Decrypts without failing on the padding, as `openWithKey` does. Web Crypto's AES-CBC decryption
 * checks the padding itself and throws, which would make a bad padding take another path than a bad
 * plaintext. So one block is appended whose decryption is a full padding block whatever the message
 * holds: E(P xor C_n) with P sixteen 0x10 bytes and C_n the last ciphertext block. Web Crypto then
 * strips exactly that block and returns the message's own blocks, its padding unchecked, which the
 * same constant-work check as on Node then reads. Both calls run for every message, good or bad.
 */
export async function webOpen(ciphertext: string, key: WebAesKey): Promise<Opened> {
  const bytes = checkBlocks(decodeBase64(ciphertext, 'The ciphertext'));
  const cryptoKey = await cryptoKeyOf(key);
  const last = bytes.subarray(bytes.length - BLOCK);
  const fullPad = new Uint8Array(BLOCK).fill(BLOCK);
  const tail = await crypto.subtle.encrypt({ name: 'AES-CBC', iv: last }, cryptoKey, fullPad);
  const extended = new Uint8Array(bytes.length + BLOCK);
  extended.set(bytes);
  extended.set(new Uint8Array(tail, 0, BLOCK), bytes.length);
  const plain = new Uint8Array(
    await crypto.subtle.decrypt({ name: 'AES-CBC', iv: iv() }, cryptoKey, extended),
  );
  const { length, padded } = unpaddedLength(plain);
  const body = plain.subarray(0, length);
  const text = utf8Text(body);
  // Both checks run for every message, as in openWithKey: no padding oracle in the time taken.
  const utf8 = isUtf8Of(body, text);
  return { text, intact: padded && utf8 };
}
