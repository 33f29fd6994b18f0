import { ProxyFailure } from './errors.ts';
import type { UpstreamAnswer } from './upstream.ts';

export interface Unwrapped {
  answer: UpstreamAnswer;
  /** The service's refusal code, when the answer is a refusal. */
  errorCode?: string;
  deviceInfo?: unknown;
}

const HEX = /^(?:[0-9a-fA-F]{2})+$/;

// The media types a license service's answer has: a license as bytes (Widevine, PlayReady's binary),
// as text (FairPlay's base64 CKC, a certificate's base64), as XML (PlayReady's SOAP), and JSON
// (ClearKey's licenses, json-format answers, refusals). Any other (an error page's text/html) is
// not relayed: a page served on the site's origin is the site's page.
const LICENSE_TYPES = new Set([
  'application/octet-stream',
  'application/json',
  'text/plain',
  'text/xml',
  'application/xml',
]);

/**
 * Reads an answer of the service the way a client must (the wire addendum, section 2), or says why
 * it is not relayed. JSON with `errorCode` is a refusal and stays as it came, whatever its status
 * (the service's are HTTP 200; players read one with a 5xx too); an `errorCode` that is neither
 * text nor a number is a bad answer. Any other server error (5xx) is UPSTREAM_ERROR, and a content
 * type no license answer has UPSTREAM_BAD_ANSWER. A 200 in JSON with `license` is a json-format
 * license, which `unwrap` turns into the license itself (Widevine's hex text into bytes); anything
 * else is the license already. Only small JSON-looking bodies are parsed.
 */
export function readAnswer(
  answer: UpstreamAnswer,
  drmType: string,
  unwrap: boolean,
): Unwrapped | ProxyFailure {
  return readAnswerWith(answer, drmType, unwrap, jsonMembers);
}

/**
 * readAnswer with the JSON reading given: `jsonObject` parses every JSON-looking answer, which
 * readAnswer's `jsonMembers` must agree with (tests).
 */
export function readAnswerWith(
  answer: UpstreamAnswer,
  drmType: string,
  unwrap: boolean,
  readJson: (bytes: Uint8Array) => Record<string, unknown> | undefined,
): Unwrapped | ProxyFailure {
  const mediaType = answer.contentType?.split(';')[0]?.trim().toLowerCase();
  const licenseType = mediaType === undefined || LICENSE_TYPES.has(mediaType);
  const json = readJson(answer.bytes);
  const code = json?.['errorCode'];
  if (code !== undefined) {
    if (typeof code !== 'string' && typeof code !== 'number') {
      return new ProxyFailure(
        'UPSTREAM_BAD_ANSWER',
        'The license service answered a refusal whose errorCode is neither text nor a number.',
      );
    }
    const errorCode = String(code).slice(0, 20);
    // The refusal as it came; a type the addendum leaves open is named JSON, which it is.
    if (licenseType) return { answer, errorCode };
    return { answer: { ...answer, contentType: 'application/json; charset=utf-8' }, errorCode };
  }
  if (answer.status >= 500) {
    return new ProxyFailure(
      'UPSTREAM_ERROR',
      `The license service failed (HTTP ${answer.status}); try again later.`,
    );
  }
  if (!licenseType) {
    return new ProxyFailure(
      'UPSTREAM_BAD_ANSWER',
      `The license service answered ${JSON.stringify(mediaType.slice(0, 60))}, which no license answer is; the proxy does not pass it on.`,
    );
  }
  if (json === undefined || !unwrap || answer.status !== 200 || !('license' in json)) {
    return { answer };
  }
  const license = json['license'];
  if (typeof license !== 'string' || license.length === 0) {
    return new ProxyFailure(
      'UPSTREAM_BAD_ANSWER',
      'The license service answered json without a license text; the proxy cannot unwrap it.',
    );
  }
  const binary = drmType === 'Widevine' && HEX.test(license);
  return {
    answer: {
      status: answer.status,
      contentType: binary ? 'application/octet-stream' : 'text/plain; charset=utf-8',
      bytes: binary ? hexBytes(license) : (utf8Encoder ??= new TextEncoder()).encode(license),
    },
    deviceInfo: json['device_info'],
  };
}

/** The answer as a JSON object, when it looks like one (a `{` after blanks) and parses as one. */
export function jsonObject(bytes: Uint8Array): Record<string, unknown> | undefined {
  const start = objectStart(bytes);
  return start < 0 ? undefined : parseObject(bytes);
}

/**
 * What readAnswer reads of an answer: jsonObject's object when it may hold `errorCode` or
 * `license`, else undefined, which readAnswer reads as it reads a parsed object without either.
 * Those are the only members read but for `device_info` beside a license. Without a backslash
 * (`"\u0065rrorCode"` parses to errorCode) a member's name is in the bytes as it is, quotes
 * included; an answer whose bytes hold neither name is not parsed: most licenses are not JSON, and
 * ClearKey's JSON licenses cost the proxy a decode and a parse per request for nothing.
 */
function jsonMembers(bytes: Uint8Array): Record<string, unknown> | undefined {
  const start = objectStart(bytes);
  if (start < 0 || !mayNameMembers(bytes, start)) return undefined;
  return parseObject(bytes);
}

const ERROR_CODE = '"errorCode"';
const LICENSE = '"license"';

function mayNameMembers(bytes: Uint8Array, from: number): boolean {
  for (let i = from; i < bytes.length; i++) {
    const byte = bytes[i];
    if (byte === 0x5c /* \ */) return true;
    if (
      byte === 0x22 /* " */ &&
      (startsWith(bytes, i, ERROR_CODE) || startsWith(bytes, i, LICENSE))
    ) {
      return true;
    }
  }
  return false;
}

// Whether the bytes at `at` are the ASCII `name` (whose first character, a quote, is known).
function startsWith(bytes: Uint8Array, at: number, name: string): boolean {
  if (at + name.length > bytes.length) return false;
  for (let i = 1; i < name.length; i++) if (bytes[at + i] !== name.charCodeAt(i)) return false;
  return true;
}

// Where the object starts after blanks, or -1 when the bytes do not start with `{`.
function objectStart(bytes: Uint8Array): number {
  let i = 0;
  while (i < bytes.length && (bytes[i] === 0x20 || bytes[i] === 0x0a || bytes[i] === 0x0d)) i++;
  return bytes[i] === 0x7b /* { */ ? i : -1;
}

// One of each for every answer, made on first use (loading the module makes nothing): making a
// TextDecoder costs more than decoding a license with it. A decode that is not streaming starts
// afresh, whether the one before failed or not.
let utf8: InstanceType<typeof TextDecoder> | undefined;
let utf8Encoder: InstanceType<typeof TextEncoder> | undefined;

function parseObject(bytes: Uint8Array): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(
      (utf8 ??= new TextDecoder('utf-8', { fatal: true })).decode(bytes),
    );
    return value !== null && typeof value === 'object' && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

function hexBytes(hex: string): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return out;
}
