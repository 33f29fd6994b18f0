import { bytesToText } from '../engine/bytes.ts';
import { LicenseAuthError } from '../engine/errors.ts';
import { contentIdFromSkd } from '../engine/fairplay.ts';
import type { DrmInfo } from './shaka-types.ts';

/**
 * `drm.initDataTransform` for the legacy FairPlay path (`com.apple.fps.1_0`, WebKit's prefixed EME
 * through Shaka's `apple` polyfill): rebuilds skd init data as that CDM expects it, with the content
 * ID taken from the `skd://` URI and the certificate Shaka loaded:
 * `[len][skd URI, UTF-16LE][len][content ID, UTF-16LE][len][certificate]`, lengths 32-bit LE.
 * Like Shaka's own default, it leaves init data alone on every other path (modern EME takes the
 * skd URI as it is).
 */
export function fairPlayInitDataTransform(
  initData: Uint8Array,
  initDataType: string,
  drmInfo: DrmInfo | null,
): Uint8Array {
  const polyfill = (globalThis as { shakaMediaKeysPolyfill?: string }).shakaMediaKeysPolyfill;
  if (initDataType !== 'skd' || polyfill !== 'apple') return initData;
  const cert = drmInfo?.serverCertificate;
  if (!cert || cert.length === 0) {
    throw new LicenseAuthError(
      'FAIRPLAY_CERTIFICATE',
      'FairPlay needs the server certificate: set fairplay.certificateUrl or fairplay.certificate.',
    );
  }
  const uri = bytesToText(initData);
  const parts = [utf16le(uri), utf16le(contentIdFromSkd(uri) ?? ''), cert];
  const out = new Uint8Array(parts.reduce((n, p) => n + 4 + p.length, 0));
  const view = new DataView(out.buffer);
  let offset = 0;
  for (const part of parts) {
    view.setUint32(offset, part.length, true);
    out.set(part, offset + 4);
    offset += 4 + part.length;
  }
  return out;
}

function utf16le(text: string): Uint8Array {
  const out = new Uint8Array(text.length * 2);
  const view = new DataView(out.buffer);
  for (let i = 0; i < text.length; i++) view.setUint16(i * 2, text.charCodeAt(i), true);
  return out;
}
