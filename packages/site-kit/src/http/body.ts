import { SiteKitError } from '../errors.ts';

export const DEFAULT_MAX_BODY_BYTES = 64 * 1024;

export type BodyResult =
  | { ok: true; text: string }
  | { ok: false; tooLarge: true }
  | { ok: false; tooLarge: false; reason: string };

const utf8 = new TextDecoder('utf-8', { fatal: true });

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
  const bytes = chunks.length === 1 ? (chunks[0] as Uint8Array) : Buffer.concat(chunks);
  try {
    return { ok: true, text: utf8.decode(bytes) };
  } catch {
    return { ok: false, tooLarge: false, reason: 'the request body is not UTF-8 text' };
  }
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
