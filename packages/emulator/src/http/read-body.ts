import { concatBytes, utf8Text } from '../web/bytes.ts';

/**
 * Reads a web stream as UTF-8 text, stopping at `limit` bytes so that a huge body cannot exhaust
 * memory. Returns undefined when the body is larger than the limit.
 */
export async function readTextLimited(
  body: ReadableStream<Uint8Array> | null,
  limit: number,
): Promise<string | undefined> {
  if (body === null) return '';
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
  return utf8Text(concatBytes(chunks));
}
