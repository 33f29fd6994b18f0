import type { AsyncCrypto } from './async-crypto.ts';
import { checkText, damaged } from './cbc-rules.ts';
import type { SiteKeyInput } from './site-key.ts';

/** `encrypt` on the given crypto. */
export async function encryptWith<K>(
  crypto: AsyncCrypto<K>,
  plaintext: string,
  siteKey: SiteKeyInput,
): Promise<string> {
  checkText(plaintext, 'plaintext');
  return crypto.encrypt(plaintext, crypto.key(siteKey));
}

/** `decrypt` on the given crypto: the padding is checked without an early exit, as on Node. */
export async function decryptWith<K>(
  crypto: AsyncCrypto<K>,
  ciphertext: string,
  siteKey: SiteKeyInput,
): Promise<string> {
  const key = crypto.key(siteKey);
  checkText(ciphertext, 'ciphertext');
  const opened = await crypto.open(ciphertext, key);
  if (!opened.intact) throw damaged();
  return opened.text;
}
