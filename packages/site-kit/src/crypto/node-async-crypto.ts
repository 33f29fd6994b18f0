import type { KeyObject } from 'node:crypto';
import { hashesEqual, tokenHash } from '../token/hash.ts';
import { encryptWithKey, openWithKey } from './aes.ts';
import { toAesKey } from './aes-key.ts';
import type { AsyncCrypto } from './async-crypto.ts';

/** node:crypto behind the async interface: the work is synchronous and only its result is awaited. */
export const nodeCrypto: AsyncCrypto<KeyObject> = {
  key: toAesKey,
  encrypt: async (text, key) => encryptWithKey(text, key),
  open: async (ciphertext, key) => openWithKey(ciphertext, key),
  tokenHash: async (accessKey, fields, encoding) => tokenHash(accessKey, fields, encoding),
  hashesEqual,
  sync: { encrypt: encryptWithKey, open: openWithKey },
};
