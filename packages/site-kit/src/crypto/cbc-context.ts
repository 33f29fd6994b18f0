import {
  createCipheriv,
  createDecipheriv,
  type Cipheriv,
  type Decipheriv,
  type KeyObject,
} from 'node:crypto';
import { BLOCK } from './cbc-rules.ts';

// Fixed by the spec for gateway messages and the token field alike: the ASCII of 0123456789abcdef.
const IV: readonly number[] = [
  0x30, 0x31, 0x32, 0x33, 0x34, 0x35, 0x36, 0x37, 0x38, 0x39, 0x61, 0x62, 0x63, 0x64, 0x65, 0x66,
];

/**
 * One AES-256-CBC context per key, used for every message instead of a new createCipheriv each time
 * (which costs more than the encryption of a policy). It runs without padding and is never
 * finalized, so it only chains: after a message its state is that message's last ciphertext block.
 * Each message starts at the spec's IV by folding (IV xor state) into its first block, which is
 * exactly what a fresh context would compute. The padding is added and checked here, in JS.
 */
interface Context {
  cipher: Cipheriv;
  decipher: Decipheriv;
  /** The chaining block each direction is at: the IV, or the last ciphertext block it handled. */
  encryptState: Uint8Array;
  decryptState: Uint8Array;
}

const contexts = new WeakMap<KeyObject, Context>();

function contextOf(key: KeyObject): Context {
  let context = contexts.get(key);
  if (context === undefined) {
    const iv = Uint8Array.from(IV);
    context = {
      cipher: createCipheriv('aes-256-cbc', key, iv).setAutoPadding(false),
      decipher: createDecipheriv('aes-256-cbc', key, iv).setAutoPadding(false),
      encryptState: Uint8Array.from(IV),
      decryptState: Uint8Array.from(IV),
    };
    contexts.set(key, context);
  }
  return context;
}

/** AES-256-CBC with the spec's IV and PKCS7 padding: the bytes createCipheriv + final would give. */
// The padded plaintext is written here rather than into a new Buffer per message: update() reads it
// into its own output and keeps nothing. A UTF-16 unit is at most 3 UTF-8 bytes. A policy costs about
// as much in Buffer bookkeeping as in AES, so the views of the scratch buffer are kept, one per
// length in blocks, and the few bytes of padding and chaining are copied by loops.
let scratch = Buffer.alloc(0);
let views: Buffer[] = [];

function viewOf(length: number): Buffer {
  let view = views[length / BLOCK];
  if (view === undefined) {
    view = scratch.subarray(0, length);
    views[length / BLOCK] = view;
  }
  return view;
}

export function cbcEncrypt(key: KeyObject, text: string): Buffer {
  room(text.length * 3);
  return encryptScratch(key, scratch.write(text, 0, 'utf8'));
}

/**
 * `cbcEncrypt` of the text whose UTF-8 bytes are `bytes[0, length)`: for a writer that makes bytes
 * rather than a text (the policy walk), whose text would cost more to flatten and write than this copy.
 */
export function cbcEncryptBytes(key: KeyObject, bytes: Uint8Array, length: number): Buffer {
  room(length);
  scratch.set(length === bytes.length ? bytes : bytes.subarray(0, length));
  return encryptScratch(key, length);
}

function room(length: number): void {
  if (scratch.length < length + BLOCK) {
    scratch = Buffer.alloc(length + BLOCK);
    views = [];
  }
}

/** Encrypts the `length` bytes at the scratch buffer's start, then zeroes them. */
function encryptScratch(key: KeyObject, length: number): Buffer {
  const pad = BLOCK - (length % BLOCK);
  const input = viewOf(length + pad);
  for (let i = length; i < length + pad; i++) input[i] = pad;
  const context = contextOf(key);
  const state = context.encryptState;
  for (let i = 0; i < BLOCK; i++)
    input[i] = (input[i] as number) ^ (IV[i] as number) ^ (state[i] as number);
  let out: Buffer;
  try {
    out = context.cipher.update(input);
  } catch (error) {
    contexts.delete(key);
    throw error;
  } finally {
    // A policy can carry content keys: the plaintext is not left in the scratch buffer.
    zero(input);
  }
  const last = out.length - BLOCK;
  for (let i = 0; i < BLOCK; i++) state[i] = out[last + i] as number;
  return out;
}

// The typed array's own fill: Buffer's checks its arguments for encodings first.
const fillBytes = Uint8Array.prototype.fill;
function zero(bytes: Uint8Array): void {
  fillBytes.call(bytes, 0);
}

/**
 * AES-256-CBC decryption with the spec's IV, padding left in place (see `unpaddedLength`).
 * `bytes` is a non-empty multiple of 16 bytes.
 */
export function cbcDecryptRaw(key: KeyObject, bytes: Uint8Array): Buffer {
  const context = contextOf(key);
  let out: Buffer;
  try {
    out = context.decipher.update(bytes);
  } catch (error) {
    contexts.delete(key);
    throw error;
  }
  const state = context.decryptState;
  for (let i = 0; i < BLOCK; i++)
    out[i] = (out[i] as number) ^ (state[i] as number) ^ (IV[i] as number);
  state.set(bytes.subarray(bytes.length - BLOCK));
  return out;
}
