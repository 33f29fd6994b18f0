import { SiteKitError } from '../errors.ts';

// Buffer.from(s, 'base64') silently skips characters it does not know and accepts missing padding;
// a value that is not canonical base64 must be reported, not half-decoded.
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

export function isBase64(value: string): boolean {
  return BASE64.test(value);
}

/** Decodes standard, padded base64; `what` names the value in the error. */
export function decodeBase64(value: string, what: string): Buffer {
  if (!isBase64(value)) {
    throw new SiteKitError(
      'INVALID_BASE64',
      `${what} is not valid base64 (standard alphabet A-Z a-z 0-9 + /, padded with = to a multiple of 4 characters).`,
    );
  }
  return Buffer.from(value, 'base64');
}
