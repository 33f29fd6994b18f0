// Byte helpers on web-standard APIs only (atob/btoa, TextEncoder), so the bundle stays small.

export type BufferLike = ArrayBuffer | ArrayBufferView;

export function toBytes(data: BufferLike): Uint8Array {
  return data instanceof ArrayBuffer
    ? new Uint8Array(data)
    : new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
}

export function toBase64(bytes: Uint8Array): string {
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(binary);
}

/** Standard base64, whitespace ignored; `null` when the text is not base64. */
export function fromBase64(text: string): Uint8Array | null {
  const clean = text.replace(/\s+/g, '');
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(clean)) return null;
  try {
    const binary = atob(clean.padEnd(Math.ceil(clean.length / 4) * 4, '='));
    return Uint8Array.from(binary, (c) => c.charCodeAt(0));
  } catch {
    return null;
  }
}

/** Bytes as a `data:` URL, for players that only load them from a URL of their own. */
export const dataUrl = (bytes: Uint8Array): string =>
  `data:application/octet-stream;base64,${toBase64(bytes)}`;

export const utf8 = (text: string): Uint8Array => new TextEncoder().encode(text);

/** Decodes UTF-8, or UTF-16LE when the bytes look like it (as skd init data from Shaka does). */
export function bytesToText(bytes: Uint8Array): string {
  const utf16 = bytes.length > 1 && (bytes[1] === 0 || (bytes[0] === 0xff && bytes[1] === 0xfe));
  return new TextDecoder(utf16 ? 'utf-16le' : 'utf-8').decode(bytes);
}
