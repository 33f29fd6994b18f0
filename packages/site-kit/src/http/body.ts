import { SiteKitError } from '../errors.ts';
import { utf8TextOrUndefined } from '../encoding/utf8.ts';

/**
 * The gateway handler's default `maxBodyBytes`: 64 KiB (the player-facing endpoints default to 16
 * KiB).
 */
export const DEFAULT_MAX_BODY_BYTES = 64 * 1024;

export type BodyResult =
  | { ok: true; text: string }
  | { ok: false; tooLarge: true }
  | { ok: false; tooLarge: false; reason: string };

/**
 * Reads a web request body as UTF-8 text, stopping as soon as it passes `maxBytes`: an oversized
 * body is never held in memory whole. A declared Content-Length over the limit is refused unread.
 */
export async function readBodyText(request: Request, maxBytes: number): Promise<BodyResult> {
  const declared = Number(request.headers.get('content-length') ?? NaN);
  if (declared > maxBytes) return { ok: false, tooLarge: true };
  if (request.body === null) return decodeBody([]);
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > maxBytes) {
        await reader.cancel().catch(() => undefined);
        return { ok: false, tooLarge: true };
      }
      chunks.push(value);
    }
  } catch {
    return { ok: false, tooLarge: false, reason: 'the request body could not be read' };
  }
  return decodeBody(chunks);
}

/** Joins the chunks read and decodes them as strict UTF-8. */
export function decodeBody(chunks: Uint8Array[]): BodyResult {
  const text = utf8TextOrUndefined(joinChunks(chunks));
  if (text === undefined) {
    return { ok: false, tooLarge: false, reason: 'the request body is not UTF-8 text' };
  }
  // A leading byte order mark is not part of the text (as TextDecoder's default reads it).
  return { ok: true, text: text.charCodeAt(0) === 0xfeff ? text.slice(1) : text };
}

function joinChunks(chunks: Uint8Array[]): Uint8Array {
  if (chunks.length === 1) return chunks[0] as Uint8Array;
  const joined = new Uint8Array(chunks.reduce((n, c) => n + c.byteLength, 0));
  let at = 0;
  for (const chunk of chunks) {
    joined.set(chunk, at);
    at += chunk.byteLength;
  }
  return joined;
}

/** Checks a `maxBodyBytes` option once, when a handler is created. */
export function checkMaxBodyBytes(value: number | undefined): number {
  if (value === undefined) return DEFAULT_MAX_BODY_BYTES;
  if (!Number.isInteger(value) || value <= 0) {
    throw new SiteKitError(
      'INVALID_INPUT',
      'maxBodyBytes: must be a positive whole number of bytes.',
    );
  }
  return value;
}
