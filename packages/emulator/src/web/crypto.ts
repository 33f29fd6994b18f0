import type * as NodeCrypto from 'node:crypto';
import { bytesToHex, concatBytes, utf8Bytes } from './bytes.ts';

/** Web Crypto, which Node (globalThis.crypto) and browsers both have. */
const subtle = () => globalThis.crypto.subtle;

/**
 * node:crypto where the runtime has it (Node, Bun, Deno), else undefined (a browser page: the msw
 * kit). Its hash and AES are synchronous, where each Web Crypto call is a trip to a worker thread
 * and back: on Node that trip costs more than the work. Asked of the runtime rather than imported,
 * so that a browser bundle of the msw kit has no node:crypto to resolve.
 */
const node = (
  globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }
).process?.getBuiltinModule?.('node:crypto') as typeof NodeCrypto | undefined;

// Random bytes are drawn 4 KiB at a time: one getRandomValues call costs about as much for 6 bytes
// as for 4096, and every request takes an ID (9 % of a license's CPU when drawn one by one). The pool
// is turned into hex text once, so that an ID is one slice of it rather than a string built a
// character pair at a time (a string per byte, every request).
const POOL_BYTES = 4096;
let pool = '';
let drawn = 0;

/** `bytes` random bytes as lowercase hex: request IDs and gateway nonces. */
export function randomHex(bytes: number): string {
  if (bytes > POOL_BYTES)
    return bytesToHex(globalThis.crypto.getRandomValues(new Uint8Array(bytes)));
  if (2 * (drawn + bytes) > pool.length) {
    pool = bytesToHex(globalThis.crypto.getRandomValues(new Uint8Array(POOL_BYTES)));
    drawn = 0;
  }
  const hex = pool.slice(2 * drawn, 2 * (drawn + bytes));
  drawn += bytes;
  return hex;
}

export async function sha256(text: string): Promise<Uint8Array> {
  if (node !== undefined) return new Uint8Array(node.createHash('sha256').update(text).digest());
  return new Uint8Array(await subtle().digest('SHA-256', utf8Bytes(text)));
}

/** Compares two strings in a time that depends on their length only. */
export function sameText(a: string, b: string): boolean {
  const x = utf8Bytes(a);
  const y = utf8Bytes(b);
  if (x.length !== y.length) return false;
  let diff = 0;
  for (let i = 0; i < x.length; i++) diff |= (x[i] as number) ^ (y[i] as number);
  return diff === 0;
}

type Subtle = typeof globalThis.crypto.subtle;
/** A Web Crypto key (named so, as the type check runs without the DOM library). */
type WebAesKey = Awaited<ReturnType<Subtle['importKey']>>;

/** An AES-256 key: node:crypto's, or Web Crypto's where there is no node:crypto. */
export type AesKey = { node: NodeCrypto.KeyObject } | { web: WebAesKey };

export async function importAesKey(keyBytes: Uint8Array): Promise<AesKey> {
  if (node !== undefined) return { node: node.createSecretKey(keyBytes) };
  return { web: await importWebAesKey(keyBytes) };
}

/** A Web Crypto AES-CBC key; exported for the test that both paths agree. */
export function importWebAesKey(keyBytes: Uint8Array): Promise<WebAesKey> {
  return subtle().importKey('raw', keyBytes as Uint8Array<ArrayBuffer>, 'AES-CBC', false, [
    'encrypt',
    'decrypt',
  ]);
}

const BLOCK = 16;
const FULL_PAD = new Uint8Array(BLOCK).fill(BLOCK);

/**
 * AES-256-CBC decryption without the padding check, which would be an oracle: node:crypto is told
 * not to check it. Web Crypto always checks and strips PKCS#7 padding and throws on a bad one, so
 * one block is appended that decrypts to a whole block of padding (the encryption of 16 x 0x10
 * chained on the last block): Web Crypto strips exactly it, and what remains is the raw plaintext
 * of every given block, whatever their padding. `blocks` must be a whole, non-zero number of blocks.
 */
export async function decryptRawCbc(
  key: AesKey,
  iv: Uint8Array,
  blocks: Uint8Array,
): Promise<Uint8Array> {
  if ('node' in key) {
    const decipher = (node as typeof NodeCrypto)
      .createDecipheriv('aes-256-cbc', key.node, iv)
      .setAutoPadding(false);
    return concatBytes([decipher.update(blocks), decipher.final()]);
  }
  return decryptRawCbcWeb(key.web, iv, blocks);
}

/** {@link decryptRawCbc} on Web Crypto; exported for the test that both paths agree. */
export async function decryptRawCbcWeb(
  key: WebAesKey,
  iv: Uint8Array,
  blocks: Uint8Array,
): Promise<Uint8Array> {
  const last = blocks.subarray(blocks.length - BLOCK);
  const chained = new Uint8Array(
    await subtle().encrypt({ name: 'AES-CBC', iv: last as Uint8Array<ArrayBuffer> }, key, FULL_PAD),
  );
  const extended = new Uint8Array(blocks.length + BLOCK);
  extended.set(blocks);
  extended.set(chained.subarray(0, BLOCK), blocks.length);
  return new Uint8Array(
    await subtle().decrypt({ name: 'AES-CBC', iv: iv as Uint8Array<ArrayBuffer> }, key, extended),
  );
}
