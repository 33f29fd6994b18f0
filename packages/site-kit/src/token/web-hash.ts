import { bytesToBase64, textToBase64 } from '../encoding/base64.ts';
import { bytesToHexUpper } from '../encoding/hex.ts';
import { utf8Bytes } from '../encoding/utf8.ts';
import { hashInput, type HashedFields, type HashEncoding } from './hash-input.ts';

/** `tokenHash` on Web Crypto: the same base64 text from crypto.subtle's SHA-256. */
export async function webTokenHash(
  accessKey: string,
  f: HashedFields,
  encoding: HashEncoding,
): Promise<string> {
  const input = utf8Bytes(hashInput(accessKey, f)) as Uint8Array<ArrayBuffer>;
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', input));
  return encoding === 'raw-digest' ? bytesToBase64(digest) : textToBase64(bytesToHexUpper(digest));
}
