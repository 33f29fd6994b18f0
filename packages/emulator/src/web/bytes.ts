/**
 * Byte encodings on what every runtime has (atob, btoa, TextEncoder), so that the service logic runs
 * in Node and in a browser page (the msw kit) alike. No Buffer here.
 */
const encoder = new TextEncoder();
const decoder = new TextDecoder();

export const utf8Bytes = (text: string): Uint8Array<ArrayBuffer> => encoder.encode(text);
export const utf8Text = (bytes: Uint8Array): string => decoder.decode(bytes);

/** Latin-1 text of bytes, one character per byte: what btoa takes. */
function binary(bytes: Uint8Array): string {
  let text = '';
  for (let i = 0; i < bytes.length; i += 0x8000) {
    text += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return text;
}

export const bytesToBase64 = (bytes: Uint8Array): string => btoa(binary(bytes));

export const bytesToBase64url = (bytes: Uint8Array): string =>
  bytesToBase64(bytes).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');

const VALUES = new Map<string, number>(
  [...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'].map((c, i) => [c, i]),
);
VALUES.set('-', 62);
VALUES.set('_', 63);

/**
 * Decodes base64 or base64url leniently, as a lenient server does: characters outside both
 * alphabets are skipped and the first "=" ends the data. Checks of the form belong to the callers.
 */
export function base64ToBytes(text: string): Uint8Array {
  const out: number[] = [];
  let bits = 0;
  let count = 0;
  for (const c of text) {
    if (c === '=') break;
    const value = VALUES.get(c);
    if (value === undefined) continue;
    bits = (bits << 6) | value;
    count += 6;
    if (count >= 8) {
      count -= 8;
      out.push((bits >> count) & 0xff);
    }
  }
  return Uint8Array.from(out);
}

export function hexToBytes(hex: string): Uint8Array {
  const out = new Uint8Array(hex.length >> 1);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return out;
}

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
