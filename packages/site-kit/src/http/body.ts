import { SiteKitError } from '../errors.ts';
import { utf8TextOrUndefined } from '../encoding/utf8.ts';
import { joinBytes, readChunksLimited } from './bytes-body.ts';

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
 * The bounded reading is `readChunksLimited`'s; only the text decoding is this module's.
 */
export async function readBodyText(request: Request, maxBytes: number): Promise<BodyResult> {
  const declared = Number(request.headers.get('content-length') ?? NaN);
  // Checked here rather than by `readChunksLimited`, which would also cancel the body: a refused
  // request body is left as it is, as it always was.
  if (declared > maxBytes) return { ok: false, tooLarge: true };
  const read = await readChunksLimited(request.body, null, maxBytes);
  if (read.ok) return decodeBody(read.chunks);
  if (read.tooLarge) return { ok: false, tooLarge: true };
  return { ok: false, tooLarge: false, reason: 'the request body could not be read' };
}

/** Joins the chunks read and decodes them as strict UTF-8. */
export function decodeBody(chunks: Uint8Array[]): BodyResult {
  // One chunk (the usual case) is decoded as it is, without a copy.
  const bytes = chunks.length === 1 ? (chunks[0] as Uint8Array) : joinBytes(chunks);
  const text = utf8TextOrUndefined(bytes);
  if (text === undefined) {
    return { ok: false, tooLarge: false, reason: 'the request body is not UTF-8 text' };
  }
  // A leading byte order mark is not part of the text (as TextDecoder's default reads it).
  return { ok: true, text: text.charCodeAt(0) === 0xfeff ? text.slice(1) : text };
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
