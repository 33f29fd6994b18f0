/**
 * Byte encodings on what every runtime has (TextEncoder, TextDecoder) and plain tables, so that the
 * service logic runs in Node and in a browser page (the msw kit) alike. No Buffer here.
 */
const encoder = new TextEncoder();
const decoder = new TextDecoder();

export const utf8Bytes = (text: string): Uint8Array<ArrayBuffer> => encoder.encode(text);
export const utf8Text = (bytes: Uint8Array): string => decoder.decode(bytes);

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const URL_ALPHABET = `${ALPHABET.slice(0, 62)}-_`;

// By table rather than btoa: btoa needs a Latin-1 string of the bytes first, and a license request
// encodes a few short values (key IDs, keys) where building that string costs more than the rest.
function encode(bytes: Uint8Array, alphabet: string, pad: boolean): string {
  let out = '';
  let i = 0;
  for (; i + 2 < bytes.length; i += 3) {
    const n =
      ((bytes[i] as number) << 16) | ((bytes[i + 1] as number) << 8) | (bytes[i + 2] as number);
    out +=
      alphabet.charAt(n >> 18) +
      alphabet.charAt((n >> 12) & 63) +
      alphabet.charAt((n >> 6) & 63) +
      alphabet.charAt(n & 63);
  }
  const left = bytes.length - i;
  if (left === 0) return out;
  const n = ((bytes[i] as number) << 16) | (left === 2 ? (bytes[i + 1] as number) << 8 : 0);
  out += alphabet.charAt(n >> 18) + alphabet.charAt((n >> 12) & 63);
  if (left === 2) out += alphabet.charAt((n >> 6) & 63);
  return pad ? out + (left === 2 ? '=' : '==') : out;
}

export const bytesToBase64 = (bytes: Uint8Array): string => encode(bytes, ALPHABET, true);

export const bytesToBase64url = (bytes: Uint8Array): string => encode(bytes, URL_ALPHABET, false);

/** The 6-bit value of each ASCII character of both alphabets, -1 for any other. */
const VALUES = new Int8Array(128).fill(-1);
for (let i = 0; i < 64; i++) VALUES[ALPHABET.charCodeAt(i)] = i;
VALUES['-'.charCodeAt(0)] = 62;
VALUES['_'.charCodeAt(0)] = 63;
const PAD = '='.charCodeAt(0);

/**
 * Decodes base64 or base64url leniently, as a lenient server does: characters outside both
 * alphabets are skipped and the first "=" ends the data. Checks of the form belong to the callers.
 */
export function base64ToBytes(text: string): Uint8Array {
  const out = new Uint8Array((text.length * 3) >> 2);
  let length = 0;
  let bits = 0;
  let count = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === PAD) break;
    // Other characters, surrogate halves included, are skipped.
    const value = c < 128 ? (VALUES[c] as number) : -1;
    if (value < 0) continue;
    bits = ((bits << 6) | value) & 0xffffff;
    count += 6;
    if (count >= 8) {
      count -= 8;
      out[length++] = (bits >> count) & 0xff;
    }
  }
  return length === out.length ? out : out.slice(0, length);
}

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** Standard, padded base64, as the service takes tokens, custom data and SPCs: nothing skipped. */
export const isStandardBase64 = (text: string): boolean => BASE64.test(text);

const ASCII = /^[\x00-\x7f]*$/;

const WHITESPACE = /[\t\n\f\r ]/;

/**
 * The UTF-8 text of base64 or base64url, read as {@link base64ToBytes} reads it, and whether the
 * value was standard, padded base64 ({@link isStandardBase64}). Where atob takes the value (the
 * standard alphabet, what tokens and custom data are), it decodes it natively, five times faster
 * than the table: atob refuses what the lenient reading would skip or stop at, and gives the same
 * bytes for what it takes. What atob takes, in whole groups of four and without whitespace (which
 * atob skips), is exactly standard base64, so the form costs no second pass over a token.
 */
export function base64Text(text: string): { text: string; standard: boolean } {
  let binary: string;
  try {
    binary = atob(text);
  } catch {
    return { text: utf8Text(base64ToBytes(text)), standard: false };
  }
  const standard = text.length % 4 === 0 && !WHITESPACE.test(text);
  if (ASCII.test(binary)) return { text: binary, standard };
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return { text: utf8Text(bytes), standard };
}

const HEX_DIGIT = /^[0-9a-fA-F]*$/;

export function hexToBytes(hex: string): Uint8Array {
  const out = new Uint8Array(hex.length >> 1);
  if (!HEX_DIGIT.test(hex)) {
    // Not hex: what parseInt makes of each pair, as ever (callers check the form first).
    for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.slice(i * 2, i * 2 + 2), 16);
    return out;
  }
  for (let i = 0; i < out.length; i++) {
    out[i] = (nibble(hex.charCodeAt(i * 2)) << 4) | nibble(hex.charCodeAt(i * 2 + 1));
  }
  return out;
}

/** The value of a hex digit's character code: 0-9, then a-f or A-F (bit 0x20 is the case). */
const nibble = (c: number): number => (c <= 57 ? c - 48 : (c | 0x20) - 87);

const HEX = Array.from({ length: 256 }, (_, b) => b.toString(16).padStart(2, '0'));

export function bytesToHex(bytes: Uint8Array): string {
  let out = '';
  for (let i = 0; i < bytes.length; i++) out += HEX[bytes[i] as number] as string;
  return out;
}

export function concatBytes(parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}
