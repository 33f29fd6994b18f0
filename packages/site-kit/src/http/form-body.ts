import { isBase64 } from '../encoding/base64.ts';

/**
 * The base64 `data` value of a gateway request body: `data=<url-encoded base64>` as the spec sends
 * it, or the bare base64 text. Form decoding turns a literal `+` into a space; base64 has no spaces,
 * so every space is put back as `+`. Undefined when the body holds no candidate value.
 */
export function readDataParameter(body: string): string | undefined {
  const text = body.trim();
  if (text.length === 0) return undefined;
  const raw = text.replaceAll(' ', '+');
  if (isBase64(raw)) return raw;
  const data = new URLSearchParams(text).get('data');
  if (data === null || data.length === 0) return undefined;
  return data.trim().replaceAll(' ', '+');
}

/** The form body the license service posts: `data=` and the url-encoded base64. */
export function formatDataParameter(base64: string): string {
  return `data=${encodeURIComponent(base64)}`;
}
