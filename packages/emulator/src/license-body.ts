import { EmulatorError } from './errors.ts';
import { parseLicenseRequest, type ClearKeyRequest } from './license-request.ts';
import { base64ToBytes, isStandardBase64, utf8Text } from './web/bytes.ts';

// What a license request's body is, by its shape, as the service reads it before the CDM work: a
// ClearKey request (the emulator's own door, a real license), a Widevine challenge (binary), a
// PlayReady challenge (SOAP XML, which may carry the token in <CustomData>), a FairPlay `spc=` form
// body (the base64 URL-escaped or raw), or something else (a Wiseplay challenge, or garbage).

export type LicenseBody =
  | { shape: 'clearkey'; request: ClearKeyRequest }
  /** JSON that is not a ClearKey request: refused as one, unless the token is a Wiseplay token. */
  | { shape: 'json'; bytes: Uint8Array; error: unknown }
  | { shape: 'widevine'; bytes: Uint8Array }
  | { shape: 'playready'; bytes: Uint8Array; customData: string | undefined }
  | { shape: 'fairplay'; spc: string }
  /** A form body without `spc`: the service's "required request parameter missing". */
  | { shape: 'form'; bytes: Uint8Array }
  | { shape: 'empty' }
  | { shape: 'other'; bytes: Uint8Array };

export type BodyShape = LicenseBody['shape'];

// A Widevine SignedMessage starts with field 1 (the message type) as a varint: tag byte 0x08.
const WIDEVINE_TAG = 0x08;

/** The body's shape and what the emulator reads out of it. Never throws. */
export function readLicenseBody(bytes: Uint8Array, contentType: string | null): LicenseBody {
  if (bytes.length === 0) return { shape: 'empty' };
  if (bytes[0] === WIDEVINE_TAG) return { shape: 'widevine', bytes };
  const text = utf8Text(bytes);
  const trimmed = text.trim();
  if (trimmed === '') return { shape: 'empty' };
  const spc = formValue(trimmed, 'spc');
  if (spc !== undefined) return { shape: 'fairplay', spc };
  if (/x-www-form-urlencoded/i.test(contentType ?? '')) return { shape: 'form', bytes };
  if (trimmed.startsWith('<') && /<(?:\w+:)?(?:AcquireLicense|Challenge)\b/.test(trimmed)) {
    return { shape: 'playready', bytes, customData: customDataOf(trimmed) };
  }
  if (trimmed.startsWith('{') || trimmed.startsWith('[')) {
    try {
      return { shape: 'clearkey', request: parseLicenseRequest(text) };
    } catch (error) {
      return { shape: 'json', bytes, error };
    }
  }
  return { shape: 'other', bytes };
}

/**
 * The value of a form parameter. The public samples send the SPC's base64 both URL-escaped and
 * raw; raw base64 keeps its "+", so "+" is never read as a space (base64 has no spaces).
 */
function formValue(body: string, name: string): string | undefined {
  // Most bodies are no form: no split into pairs for them.
  if (!body.includes(`${name}=`)) return undefined;
  for (const pair of body.split('&')) {
    const at = pair.indexOf('=');
    if (at < 0 || pair.slice(0, at) !== name) continue;
    const value = pair.slice(at + 1);
    try {
      return decodeURIComponent(value);
    } catch {
      return value;
    }
  }
  return undefined;
}

/** The text of a PlayReady challenge's <CustomData> element, entities decoded; undefined if none. */
function customDataOf(xml: string): string | undefined {
  const match = /<(?:\w+:)?CustomData>([^<]*)<\/(?:\w+:)?CustomData>/.exec(xml);
  const value = match?.[1]
    ?.replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&amp;/g, '&')
    .trim();
  return value === undefined || value === '' ? undefined : value;
}

/** The DRM a body is a request of, checked against the token's drm_type: one refusal per path. */
export type LicenseDrm = 'ClearKey' | 'Widevine' | 'PlayReady' | 'FairPlay' | 'Wiseplay';

/**
 * The DRM whose license answers this body under a token of `drmType`, or the refusal of that DRM's
 * path. ClearKey requests are served under any drm_type (ClearKey stands in for the DRM the player
 * names; the player maps it to Widevine by default). Bodies of no known shape keep the ClearKey
 * refusal (6005), as the emulator has always answered them.
 */
export function licenseDrmOf(body: LicenseBody, drmType: string): LicenseDrm {
  if (body.shape === 'clearkey') return 'ClearKey';
  if (drmType === 'NCG') {
    throw new EmulatorError(
      'UNSUPPORTED_MODE',
      'The token is an NCG token: the emulator has no NCG license path (it answers ClearKey, Widevine, PlayReady, FairPlay and Wiseplay requests).',
      { drmType },
      { field: 'drm_type' },
    );
  }
  if (drmType === 'Wiseplay' && body.shape !== 'empty') return 'Wiseplay';
  if (drmType === 'FairPlay') return fairPlay(body);
  if (drmType === 'Widevine' && body.shape === 'widevine') return 'Widevine';
  if (drmType === 'PlayReady' && body.shape === 'playready') return 'PlayReady';
  if (body.shape === 'json') throw body.error;
  if (body.shape === 'other' || body.shape === 'empty') throw notClearKey(body.shape === 'empty');
  if (body.shape === 'form') throw missingSpc(drmType);
  if (drmType === 'Widevine') {
    throw new EmulatorError(
      'WIDEVINE_BAD_CHALLENGE',
      `The token is a Widevine token but the body is a ${SHAPE_NAMES[body.shape]}: send the Widevine CDM's challenge unchanged (binary, application/octet-stream).`,
      { bodyShape: body.shape },
    );
  }
  throw new EmulatorError(
    'PLAYREADY_BAD_CHALLENGE',
    `The token is a ${drmType} token but the body is a ${SHAPE_NAMES[body.shape]}: send the PlayReady CDM's challenge unchanged (the SOAP AcquireLicense XML).`,
    { bodyShape: body.shape },
  );
}

const SHAPE_NAMES: Record<BodyShape, string> = {
  clearkey: 'ClearKey request',
  json: 'JSON body',
  widevine: 'Widevine challenge',
  playready: 'PlayReady challenge',
  fairplay: 'FairPlay spc= form body',
  form: 'form body without spc',
  empty: 'empty body',
  other: 'body of no known shape',
};

function fairPlay(body: LicenseBody): LicenseDrm {
  if (body.shape === 'form') throw missingSpc('FairPlay');
  if (body.shape === 'empty' || (body.shape === 'fairplay' && body.spc.trim() === '')) {
    throw new EmulatorError(
      'FAIRPLAY_EMPTY_SPC',
      'The FairPlay request carries no SPC: the body is spc=<base64 of the SPC the CDM made> (URL-escaped or raw).',
      undefined,
      { field: 'spc' },
    );
  }
  if (body.shape !== 'fairplay') {
    throw new EmulatorError(
      'FAIRPLAY_BAD_SPC',
      `The token is a FairPlay token but the body is a ${SHAPE_NAMES[body.shape]}: send spc=<base64 SPC> (application/x-www-form-urlencoded).`,
      { bodyShape: body.shape },
      { field: 'spc' },
    );
  }
  const spc = body.spc.trim();
  if (!isStandardBase64(spc) || base64ToBytes(spc).length === 0) {
    throw new EmulatorError(
      'FAIRPLAY_BAD_SPC',
      'The spc parameter is not standard base64 of the SPC: send the SPC the CDM made, base64 encoded, URL-escaped or raw ("+" is read as "+").',
      undefined,
      { field: 'spc' },
    );
  }
  return 'FairPlay';
}

// What each DRM's license request is sent as (the service's proxy samples).
const CONTENT_TYPES: Readonly<Record<string, string>> = {
  Widevine: 'application/octet-stream',
  PlayReady: 'application/octet-stream (or text/xml)',
};

// The service reads a form body as FairPlay's whatever the token, so it answers 9001 for spc; the
// detail says why to a site that sent another DRM's request as a form.
function missingSpc(drmType: string): EmulatorError {
  const type = CONTENT_TYPES[drmType];
  return new EmulatorError(
    'MISSING_PARAMETER',
    type === undefined
      ? 'The form body has no spc parameter: a FairPlay license request is spc=<base64 SPC>.'
      : `The body came as a form (application/x-www-form-urlencoded), which is read as FairPlay's spc=<base64 SPC>, and has no spc parameter: a ${drmType} license request is the CDM's challenge, sent unchanged as ${type}.`,
    { parameter: 'spc' },
    { field: 'spc' },
  );
}

function notClearKey(empty: boolean): EmulatorError {
  return new EmulatorError(
    'BAD_LICENSE_REQUEST',
    `${empty ? 'The body is empty.' : 'The body is none of the request shapes the emulator reads.'} A license request body is the ClearKey request JSON {"kids":["<base64url key ID>"],"type":"temporary"}, or the CDM's challenge of the token's DRM (Widevine binary, PlayReady SOAP XML, FairPlay spc=<base64>).`,
  );
}
