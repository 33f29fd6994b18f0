import { codeTable, isBase64 } from '../encoding/base64.ts';

/**
 * The value of `data=<url-encoded base64>` when the body is that and nothing else, read to the
 * character as form decoding reads it: base64 characters, `+` (which form decoding makes a space, put
 * back as `+` by the caller) and the escapes encodeURIComponent writes for `+ / =`, in either case.
 * Undefined for anything else, including a raw `+` first or last (a space that the trim removes).
 */
function plainFormValue(text: string): string | undefined {
  const end = text.length;
  if (end === 5 || text.charCodeAt(5) === PLUS || text.charCodeAt(end - 1) === PLUS)
    return undefined;
  // One pass that only checks (a table per character, no string built), then the escapes decoded
  // natively: building the value a slice at a time cost as much as the rest of the gateway per KB.
  // Checked, the only escapes are %2B, %2F and %3D, which decodeURIComponent reads as form decoding
  // does (and it leaves a raw `+` as it is).
  let escapes = false;
  for (let i = 5; i < end; i++) {
    const c = text.charCodeAt(i);
    if (c < 128 && FORM_CHARS[c] === 1) continue;
    if (c !== PERCENT || i + 2 >= end || unescaped(text, i) === undefined) return undefined;
    escapes = true;
    i += 2;
  }
  const value = text.slice(5);
  return escapes ? decodeURIComponent(value) : value;
}

const PLUS = 43;
const PERCENT = 37;
// What stands for itself in the value: base64's alphabet and its padding.
const FORM_CHARS = codeTable('ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=');

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
  // The body the license service sends, read without URLSearchParams (whose object costs as much as
  // the decryption of a short body): the value it would give, to the character
  // (test/http/form-body.test.ts). From a few hundred characters on, URLSearchParams's reading
  // costs less per character than any loop of ours; a body starting `data=` is never bare base64.
  if (text.startsWith('data=')) {
    if (text.length < LOOP_UNDER) {
      const plain = plainFormValue(text);
      if (plain !== undefined) return plain;
    }
    return formValue(text);
  }
  const raw = text.replaceAll(' ', '+');
  if (isBase64(raw)) return raw;
  return formValue(text);
}

const LOOP_UNDER = 256;

function formValue(text: string): string | undefined {
  const data = new URLSearchParams(text).get('data');
  if (data === null || data.length === 0) return undefined;
  return data.trim().replaceAll(' ', '+');
}

/** The form body the license service posts: `data=` and the url-encoded base64. */
export function formatDataParameter(base64: string): string {
  return `data=${encodeURIComponent(base64)}`;
}
