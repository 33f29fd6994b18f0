import { SiteKitError } from '../errors.ts';
import { nodeBuffer } from './node-buffer.ts';
import { utf8Bytes, utf8Text } from './utf8.ts';

// Buffer.from(s, 'base64') silently skips characters it does not know and accepts missing padding;
// a value that is not canonical base64 must be reported, not half-decoded: what
// /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/ matches. Read by character
// codes through a table: every verified token checks its data and hash; that regex cost 3 to 7 ns a
// character, a chain of comparisons grew to 8 ns a character on long values, the table stays near
// 2 ns. Long values (a gateway body can be 58 KB) try a native test first (NATIVE_FROM).
const PAD = 61; // '='

// Newer engines (workerd, Deno, Bun) have these; lib ES2023 does not declare them.
interface Base64Engine {
  fromBase64?: (value: string) => Uint8Array;
}
interface Base64Bytes {
  toBase64?: () => string;
}

export function isBase64(value: string): boolean {
  if (typeof value === 'string' && value.length >= NATIVE_FROM) {
    const bytes = nativeBase64(value);
    if (bytes !== undefined) return bytes !== false;
  }
  return readsAsBase64(value);
}

// From this length on, Node's own base64 decode and encode answer: about 0.3 ns a character against
// 3-5 for the loop below on the bench machine (which made a 58 KB gateway body cost twice the
// hand-written gateway per KB). Shorter values (token fields) are left to the loop, which costs less
// than the two Buffers.
const NATIVE_FROM = 256;

/**
 * isBase64 for a value of 4 characters or more, by Node's own decode and encode: the bytes when it
 * holds, false when not, undefined without Buffer. A value isBase64 accepts is what Buffer writes
 * for its bytes, except perhaps its last 4 characters (padding bits that are not zero: `QR==`).
 * Conversely, whatever Buffer makes of other characters (it skips some, truncates others), a value
 * that matches what Buffer writes up to its last 4 characters holds only base64's alphabet there
 * (Buffer writes `=` only at its end). So the loop reads those 4 only, and the answer is the loop's
 * exactly (test/core/base64-check.test.ts compares the two on long near misses).
 */
function nativeBase64(value: string): Uint8Array | false | undefined {
  const buffer = nodeBuffer();
  if (buffer === undefined) return undefined;
  const bytes = buffer.from(value, 'base64');
  const written = bytes.toString('base64');
  if (written === value) return bytes;
  const last = value.length - 4;
  const valid =
    written.length === value.length &&
    value.startsWith(written.slice(0, last)) &&
    readsAsBase64(value.slice(last));
  return valid ? bytes : false;
}

function readsAsBase64(value: string): boolean {
  const length = value.length;
  if (length % 4 !== 0) return false;
  // At most two '=', and only at the end.
  let end = length;
  if (length > 0 && value.charCodeAt(length - 1) === PAD) {
    end = value.charCodeAt(length - 2) === PAD ? length - 2 : length - 1;
  }
  for (let i = 0; i < end; i++) {
    const code = value.charCodeAt(i);
    if (code > 127 || ALPHABET[code] === 0) return false;
  }
  return true;
}

/** 1 for A-Z a-z 0-9 + / (ASCII codes), else 0. */
const ALPHABET: Uint8Array = /* @__PURE__ */ codeTable(
  'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/',
);

/** A table of the 128 ASCII codes: 1 for the characters of `chars`. */
export function codeTable(chars: string): Uint8Array {
  const table = new Uint8Array(128);
  for (let i = 0; i < chars.length; i++) table[chars.charCodeAt(i)] = 1;
  return table;
}

/** Decodes standard, padded base64; `what` names the value in the error. */
export function decodeBase64(value: string, what: string): Uint8Array {
  if (typeof value === 'string' && value.length >= NATIVE_FROM) {
    // Decoded once: the bytes that pass the native test are the ones base64ToBytes would make.
    const bytes = nativeBase64(value);
    if (bytes === false) throw notBase64(what);
    if (bytes !== undefined) return bytes;
  }
  if (!readsAsBase64(value)) throw notBase64(what);
  return base64ToBytes(value);
}

function notBase64(what: string): SiteKitError {
  return new SiteKitError(
    'INVALID_BASE64',
    `${what} is not valid base64 (standard alphabet A-Z a-z 0-9 + /, padded with = to a multiple of 4 characters).`,
  );
}

/** The bytes of a value already checked by `isBase64`. */
export function base64ToBytes(value: string): Uint8Array {
  const buffer = nodeBuffer();
  if (buffer !== undefined) return buffer.from(value, 'base64');
  const native = (Uint8Array as Base64Engine).fromBase64;
  if (native !== undefined) return native(value);
  const binary = atob(value);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

export function bytesToBase64(bytes: Uint8Array): string {
  const buffer = nodeBuffer();
  if (buffer !== undefined) {
    return buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
  }
  const native = (bytes as Base64Bytes).toBase64;
  if (native !== undefined) return native.call(bytes);
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(binary);
}

/** base64 of the UTF-8 bytes of a text. */
export function textToBase64(text: string): string {
  const buffer = nodeBuffer();
  if (buffer !== undefined) return buffer.from(text, 'utf8').toString('base64');
  return bytesToBase64(utf8Bytes(text));
}

/** The UTF-8 text of base64 already checked by `isBase64`; bad sequences become U+FFFD. */
export function base64ToText(value: string): string {
  const buffer = nodeBuffer();
  if (buffer !== undefined) return buffer.from(value, 'base64').toString('utf8');
  return utf8Text(base64ToBytes(value));
}
