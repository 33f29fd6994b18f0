import { concatBytes, utf8Text } from '../web/bytes.ts';

/**
 * Reads a web stream's bytes, stopping at `limit` bytes so that a huge body cannot exhaust memory:
 * the stream is cancelled as soon as it passes the limit. Returns undefined when the body is
 * larger than the limit. The emulator's one bounded reader (license requests read the bytes,
 * gateway callback answers read text on top of it).
 */
export async function readBytesLimited(
  body: ReadableStream<Uint8Array> | null,
  limit: number,
): Promise<Uint8Array | undefined> {
  if (body === null) return new Uint8Array(0);
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => {});
      return undefined;
    }
    chunks.push(value);
  }
  return concatBytes(chunks);
}

/** `readBytesLimited`, decoded as UTF-8 text; undefined when the body is larger than `limit`. */
export async function readTextLimited(
  body: ReadableStream<Uint8Array> | null,
  limit: number,
): Promise<string | undefined> {
  const bytes = await readBytesLimited(body, limit);
  return bytes === undefined ? undefined : utf8Text(bytes);
}
