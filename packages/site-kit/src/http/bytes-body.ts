export type BytesResult =
  | { ok: true; bytes: Uint8Array<ArrayBuffer> }
  | { ok: false; tooLarge: true }
  | { ok: false; tooLarge: false };

const STOPPED = Symbol('stopped');

/**
 * Reads a body as bytes, stopping as soon as it passes `maxBytes`: a declared Content-Length over
 * the limit is refused unread, and a body that grows past it is cancelled, never held whole. When
 * `until` settles first (a deadline), the body is cancelled and the read fails.
 */
export async function readBytesLimited(
  body: ReadableStream<Uint8Array> | null,
  declaredLength: string | null,
  maxBytes: number,
  until?: Promise<unknown>,
): Promise<BytesResult> {
  const read = await readChunksLimited(body, declaredLength, maxBytes, until);
  return read.ok ? { ok: true, bytes: joinBytes(read.chunks) } : read;
}

export type ChunksResult =
  | { ok: true; chunks: Uint8Array[] }
  | { ok: false; tooLarge: true }
  | { ok: false; tooLarge: false };

/**
 * `readBytesLimited` without the join: the chunks as the stream gave them, which may be views on a
 * shared pool. For a caller that decodes them at once (a text body), so a one-chunk body is not
 * copied first.
 */
export async function readChunksLimited(
  body: ReadableStream<Uint8Array> | null,
  declaredLength: string | null,
  maxBytes: number,
  until?: Promise<unknown>,
): Promise<ChunksResult> {
  if (declaredLength !== null && Number(declaredLength) > maxBytes) {
    await body?.cancel().catch(() => undefined);
    return { ok: false, tooLarge: true };
  }
  if (body === null) return { ok: true, chunks: [] };
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const next = await (until === undefined
        ? reader.read()
        : Promise.race([reader.read(), until.then((): typeof STOPPED => STOPPED)]));
      if (next === STOPPED) {
        reader.cancel().catch(() => undefined);
        return { ok: false, tooLarge: false };
      }
      const { done, value } = next;
      if (done) break;
      size += value.byteLength;
      if (size > maxBytes) {
        await reader.cancel().catch(() => undefined);
        return { ok: false, tooLarge: true };
      }
      chunks.push(value);
    }
  } catch {
    return { ok: false, tooLarge: false };
  }
  return { ok: true, chunks };
}

/** The chunks copied into one array of their own (a node chunk may be a view on a shared pool). */
export function joinBytes(chunks: readonly Uint8Array[]): Uint8Array<ArrayBuffer> {
  const size = chunks.reduce((n, c) => n + c.byteLength, 0);
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.byteLength;
  }
  return bytes;
}
