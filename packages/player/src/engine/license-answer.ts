import { fromBase64, utf8, type BufferLike } from './bytes.ts';
import { LicenseAuthError } from './errors.ts';
import { isFairPlay } from './key-systems.ts';
import {
  builderErrorOf,
  readJsonObject,
  refusalOf,
  type ServiceErrorBody,
} from './service-error.ts';

/**
 * What a license answer is, read before the CDM sees it: a refusal, a `json`-format license
 * (unwrapped to what the CDM takes), or (neither set) the license itself.
 */
export interface LicenseAnswer {
  refusal?: ServiceErrorBody;
  license?: Uint8Array;
}

/**
 * Reads a license answer before the CDM sees it; throws LICENSE_RESPONSE for a `json`-format answer
 * whose `license` is empty or unreadable.
 */
export function readLicenseAnswer(
  data: BufferLike,
  keySystem: string,
  drmType: string,
): LicenseAnswer {
  const body = readJsonObject(data);
  const refusal = refusalOf(body);
  if (refusal) return { refusal };
  const builder = builderErrorOf(body);
  if (builder) {
    throw new LicenseAuthError(
      'LICENSE_RESPONSE',
      `The ${drmType} license answer is a token builder's error (${builder.code}${builder.message ? `: ${builder.message}` : ''}), not the license service's: the site's token code failed; check the site's logs.`,
    );
  }
  if (!body || !('license' in body)) return {};
  const wrapped = body['license'];
  const text =
    typeof wrapped === 'string'
      ? wrapped.trim()
      : typeof wrapped === 'object' && wrapped !== null
        ? JSON.stringify(wrapped)
        : '';
  // Widevine licenses travel as hex text, whatever the CDM (a ClearKey stand-in's license JSON too);
  // ClearKey (the license JSON), PlayReady and FairPlay as the text the CDM takes (FairPlay's base64
  // CKC is decoded afterwards, like a bare CKC answer).
  const binary = drmType === 'Widevine' && !isFairPlay(keySystem);
  const license = !text
    ? null
    : binary && /^(?:[\da-f]{2})+$/i.test(text)
      ? Uint8Array.from(text.match(/../g)!, (h) => parseInt(h, 16))
      : binary && !keySystem.startsWith('org.w3.clearkey')
        ? fromBase64(text)
        : utf8(text);
  if (!license?.length) {
    throw new LicenseAuthError(
      'LICENSE_RESPONSE',
      `The ${drmType} license answer is JSON whose "license" is ${binary ? 'neither hex nor base64' : 'empty'}: check the token's response_format and the license server.`,
    );
  }
  return { license };
}
