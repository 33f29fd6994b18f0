import { textsEqual } from '../token/hash-input.ts';
import { webTokenHash } from '../token/web-hash.ts';
import type { AsyncCrypto } from './async-crypto.ts';
import { toWebAesKey, webEncrypt, webOpen, type WebAesKey } from './web-aes.ts';

/** crypto.subtle behind the async interface: for Workers, edge functions and browsers. */
export const webCrypto: AsyncCrypto<WebAesKey> = {
  key: toWebAesKey,
  encrypt: webEncrypt,
  open: webOpen,
  tokenHash: webTokenHash,
  hashesEqual: textsEqual,
};
