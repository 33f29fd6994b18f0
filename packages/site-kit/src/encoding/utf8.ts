// Made on first use, not when the module loads: a module that only imports these pays nothing.
let encoder: InstanceType<typeof TextEncoder> | undefined;
let lenient: InstanceType<typeof TextDecoder> | undefined;
let strict: InstanceType<typeof TextDecoder> | undefined;

export function utf8Bytes(text: string): Uint8Array {
  encoder ??= new TextEncoder();
  return encoder.encode(text);
}

/** Lenient decoding, as Buffer's toString('utf8'): bad sequences become U+FFFD, a BOM is kept. */
export function utf8Text(bytes: Uint8Array): string {
  lenient ??= new TextDecoder('utf-8', { ignoreBOM: true });
  return lenient.decode(bytes);
}

/** Strict decoding: undefined when the bytes are not UTF-8. A BOM is kept. */
export function utf8TextOrUndefined(bytes: Uint8Array): string | undefined {
  strict ??= new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
  try {
    return strict.decode(bytes);
  } catch {
    return undefined;
  }
}

/**
 * Whether `text`, decoded leniently from `bytes`, is what they hold: well-formed UTF-8 round-trips
 * byte for byte, anything else gained a U+FFFD. Answers without throwing, so a caller that must take
 * one path for good and bad bytes has no exception to time.
 */
export function isUtf8Of(bytes: Uint8Array, text: string): boolean {
  const again = utf8Bytes(text);
  let diff = again.length ^ bytes.length;
  const n = Math.min(again.length, bytes.length);
  for (let i = 0; i < n; i++) diff |= (again[i] as number) ^ (bytes[i] as number);
  return diff === 0;
}
