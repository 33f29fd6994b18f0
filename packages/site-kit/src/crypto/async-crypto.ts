import type { HashedFields, HashEncoding } from '../token/hash-input.ts';
import type { Opened } from './cbc-rules.ts';
import type { SiteKeyInput } from './site-key.ts';

/**
 * The crypto the async API and the web handlers run on: node:crypto on Node, Bun and Deno,
 * crypto.subtle where there is no node:crypto. `K` is the key object each makes once per site key.
 */
export interface AsyncCrypto<K> {
  /** Validates a site key (INVALID_SITE_KEY) and makes its key object; synchronous, so errors come early. */
  key(siteKey: SiteKeyInput): K;
  /** base64 of AES-256-CBC(text) with the spec's IV and PKCS7. */
  encrypt(text: string, key: K): Promise<string>;
  /** Decrypts without failing on the padding; only a malformed ciphertext throws. */
  open(ciphertext: string, key: K): Promise<Opened>;
  /** The token's hash text. */
  tokenHash(accessKey: string, fields: HashedFields, encoding: HashEncoding): Promise<string>;
  /** Constant-time comparison of two hash texts. */
  hashesEqual(expected: string, received: string): boolean;
  /**
   * The same encryption and opening, synchronous, where the crypto is (node:crypto): a gateway
   * request then costs no promise steps for work that never waited.
   */
  sync?: SyncCbc<K>;
}

/** `encrypt` and `open` of {@link AsyncCrypto}, answered at once. */
export interface SyncCbc<K> {
  encrypt(text: string, key: K): string;
  open(ciphertext: string, key: K): Opened;
}
