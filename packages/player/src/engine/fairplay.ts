import { bytesToText, fromBase64, toBase64, toBytes, utf8, type BufferLike } from './bytes.ts';
import { LicenseAuthError } from './errors.ts';
import { readJsonObject } from './service-error.ts';

/** A FairPlay certificate as sent by servers: DER bytes, base64 text, or PEM. */
export function normaliseCertificate(data: BufferLike | string): Uint8Array {
  const text = typeof data === 'string' ? data : bytesToText(toBytes(data));
  // DER bytes never read as base64 text, so whatever decodes was sent as text.
  const decoded = fromBase64(text.replace(/-----[A-Z ]+-----/g, ''));
  if (decoded?.length) return decoded;
  if (typeof data === 'string' || data.byteLength === 0) {
    throw new LicenseAuthError(
      'FAIRPLAY_CERTIFICATE',
      'The FairPlay certificate is neither DER bytes nor base64: give the .cer file or its base64.',
    );
  }
  return toBytes(data);
}

/** The SPC as the form body `spc=<base64>` that FairPlay license services take. */
export function spcFormBody(spc: BufferLike): Uint8Array {
  return utf8('spc=' + encodeURIComponent(toBase64(toBytes(spc))));
}

/** The CKC from a license answer: `<ckc>base64</ckc>`, JSON `{"ckc"}`, bare base64, or raw bytes. */
export function unwrapCkc(data: BufferLike): Uint8Array {
  const bytes = toBytes(data);
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes).trim();
  } catch {
    return bytes;
  }
  const tagged = /^<ckc>([\s\S]*)<\/ckc>$/i.exec(text);
  if (tagged) text = tagged[1] ?? '';
  else if (text.startsWith('{')) {
    const body = readJsonObject(text);
    const wrapped = body?.['ckc'] ?? body?.['CkcMessage'] ?? body?.['License'];
    if (typeof wrapped !== 'string') {
      throw new LicenseAuthError(
        'FAIRPLAY_RESPONSE',
        'The FairPlay license answer is JSON without a "ckc": check the license server URL.',
      );
    }
    text = wrapped;
  }
  const ckc = fromBase64(text);
  if (ckc?.length) return ckc;
  if (tagged) {
    throw new LicenseAuthError(
      'FAIRPLAY_RESPONSE',
      'The <ckc> element of the FairPlay license answer is not base64.',
    );
  }
  return bytes;
}

/** The content ID of an `skd://` key URI (from HLS `EXT-X-KEY`, or skd init data in UTF-8/UTF-16). */
export function contentIdFromSkd(
  uriOrInitData: string | BufferLike | null | undefined,
): string | null {
  if (uriOrInitData == null) return null;
  const text =
    typeof uriOrInitData === 'string' ? uriOrInitData : bytesToText(toBytes(uriOrInitData));
  const at = text.indexOf('skd://');
  if (at < 0) return null;
  return (
    text
      .slice(at + 6)
      .split(/[?#\0]/)[0]!
      .trim() || null
  );
}
