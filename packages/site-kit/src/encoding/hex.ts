/** The bytes of a hex string already checked by a schema (even length, hex digits only). */
export function hexToBytes(hex: string): Uint8Array {
  const bytes = new Uint8Array(hex.length >> 1);
  for (let i = 0; i < bytes.length; i++) bytes[i] = parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  return bytes;
}

const DIGITS = '0123456789ABCDEF';

/** UPPERCASE hex text of the bytes. */
export function bytesToHexUpper(bytes: Uint8Array): string {
  let out = '';
  for (const byte of bytes) out += (DIGITS[byte >> 4] as string) + (DIGITS[byte & 15] as string);
  return out;
}
