import { isBase64 } from '../encoding/base64.ts';

/**
 * The value of `data=<url-encoded base64>` when the body is that and nothing else, read to the
 * character as form decoding reads it: base64 characters, `+` (which form decoding makes a space, put
 * back as `+` by the caller) and the escapes encodeURIComponent writes for `+ / =`, in either case.
 * Undefined for anything else, including a raw `+` first or last (a space that the trim removes).
 */
function plainFormValue(text: string): string | undefined {
  if (!text.startsWith('data=')) return undefined;
  const end = text.length;
  if (end === 5 || text.charCodeAt(5) === PLUS || text.charCodeAt(end - 1) === PLUS)
    return undefined;
  let value = '';
  let from = 5;
  for (let i = 5; i < end; i++) {
    const c = text.charCodeAt(i);
    if (
      (c >= 65 && c <= 90) ||
      (c >= 97 && c <= 122) ||
      (c >= 47 && c <= 57) ||
      c === PLUS ||
      c === 61
    )
      continue;
    const escaped = c === 37 && i + 2 < end ? unescaped(text, i) : undefined;
    if (escaped === undefined) return undefined;
    value += text.slice(from, i) + escaped;
    i += 2;
    from = i + 1;
  }
  return from === 5 ? text.slice(5) : value + text.slice(from);
}

const PLUS = 43;

/** `+`, `/` or `=` for the escape %2B, %2F or %3D at `at` (either case), else undefined. */
function unescaped(text: string, at: number): string | undefined {
  const first = text.charCodeAt(at + 1);
  const second = text.charCodeAt(at + 2) | 0x20;
  if (first === 50) return second === 98 ? '+' : second === 102 ? '/' : undefined;
  return first === 51 && second === 100 ? '=' : undefined;
}

/**
 * The base64 `data` value of a gateway request body: `data=<url-encoded base64>` as the spec sends
 * it, or the bare base64 text. Form decoding turns a literal `+` into a space; base64 has no spaces,
 * so every space is put back as `+`. Undefined when the body holds no candidate value.
 */
export function readDataParameter(body: string): string | undefined {
  const text = body.trim();
  if (text.length === 0) return undefined;
  // The body the license service sends, read without URLSearchParams (which costs as much as the
  // decryption): the value it would give, to the character (test/http/form-body.test.ts).
  const plain = plainFormValue(text);
  if (plain !== undefined) return plain;
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
