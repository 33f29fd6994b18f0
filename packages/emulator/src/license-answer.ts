import type { ResponseFormat } from './authorization.ts';
import type { ClearKeyLicense } from './clearkey-license.ts';
import { answerJson, type Answer } from './http/exchange.ts';
import type { LicenseDrm } from './license-body.ts';
import { licenseDuration, type EffectivePolicy } from './policy.ts';
import { standInPlayReadyResponse } from './stand-in.ts';
import { bytesToBase64, bytesToHex } from './web/bytes.ts';
import { sha256 } from './web/crypto.ts';

const encoder = new TextEncoder();
const utf8Bytes = (text: string): Uint8Array => encoder.encode(text);

/** `device_info` of a json-format answer; no CDM reports a device here, so these are the emulator's. */
export interface DeviceInfo {
  /** A stable pseudonym of the browser (a hash of its User-Agent), or "" without one. */
  device_id: string;
  /** "ClearKey" for a ClearKey license, else "stand-in". */
  device_model: string;
  os_version: string;
  /** The stream ID the player sent, else the request ID. */
  session_id: string;
  is_chrome_cdm: boolean;
}

/** The json (and deprecated custom) response format of the license service. */
export interface JsonLicenseAnswer {
  /**
   * The license as the service puts it in json, by the token's DRM: Widevine (and Wiseplay) bytes as
   * hex text, a ClearKey stand-in's too; PlayReady and FairPlay the text the CDM takes (the SOAP XML,
   * the base64 CKC); ClearKey under any other DRM the license JSON.
   */
  license: string;
  device_info: DeviceInfo;
  persistent: boolean;
  license_duration?: number;
  rental_duration?: number;
  playback_duration?: number;
  expire_date?: string;
  renewal?: boolean;
  renewal_duration?: number;
}

/**
 * The device as the request tells of it. A value rather than a promise when the User-Agent needs no
 * hashing (none, or one seen before): an await costs every license a promise and a turn.
 */
export function deviceInfo(
  userAgent: string | null,
  sessionId: string,
  drm: LicenseDrm = 'ClearKey',
): DeviceInfo | Promise<DeviceInfo> {
  const known = userAgent ? deviceIds.get(userAgent) : '';
  if (known === undefined) {
    return deviceId(userAgent as string).then((id) => info(id, userAgent, sessionId, drm));
  }
  return info(known, userAgent, sessionId, drm);
}

function info(
  deviceId: string,
  userAgent: string | null,
  sessionId: string,
  drm: LicenseDrm,
): DeviceInfo {
  return {
    device_id: deviceId,
    device_model: drm === 'ClearKey' ? 'ClearKey' : 'stand-in',
    os_version: '',
    session_id: sessionId,
    is_chrome_cdm: userAgent !== null && /\bChrom(e|ium)\//.test(userAgent),
  };
}

// A load test sends a few user agents many times: each one's hash is kept, up to a bound.
const DEVICE_IDS_KEPT = 256;
const deviceIds = new Map<string, string>();

async function deviceId(userAgent: string): Promise<string> {
  const known = deviceIds.get(userAgent);
  if (known !== undefined) return known;
  const id = bytesToHex(await sha256(userAgent)).slice(0, 32);
  if (deviceIds.size >= DEVICE_IDS_KEPT) deviceIds.clear();
  deviceIds.set(userAgent, id);
  return id;
}

/** A license of one DRM: the ClearKey JSON, or a stand-in's bytes. */
export type IssuedLicense =
  | { drm: 'ClearKey'; clearKey: ClearKeyLicense }
  | { drm: Exclude<LicenseDrm, 'ClearKey'>; bytes: Uint8Array };

/**
 * The answer's body and content type for `original`: the license as the service sends it (Widevine
 * and Wiseplay binary, PlayReady the SOAP XML, FairPlay the CKC as base64 text, ClearKey its JSON).
 */
export function originalAnswer(license: IssuedLicense): {
  body: string | Uint8Array<ArrayBuffer>;
  contentType: string;
} {
  switch (license.drm) {
    case 'ClearKey':
      return { body: JSON.stringify(license.clearKey), contentType: 'application/json' };
    case 'PlayReady':
      return {
        body: standInPlayReadyResponse(license.bytes),
        contentType: 'text/xml; charset=utf-8',
      };
    case 'FairPlay':
      return { body: bytesToBase64(license.bytes), contentType: 'text/plain; charset=utf-8' };
    default:
      return {
        body: license.bytes as Uint8Array<ArrayBuffer>,
        contentType: 'application/octet-stream',
      };
  }
}

// The DRMs whose json license the service writes as hex of the license bytes.
const HEX_IN_JSON: ReadonlySet<string> = new Set(['Widevine', 'Wiseplay']);

/**
 * The `license` member of a json answer, as the service writes it for the token's DRM: Widevine and
 * Wiseplay as hex whatever the stand-in is (a ClearKey license too: the bytes of its JSON), as a
 * site's proxy hex-decodes them; the others as the text the CDM takes.
 */
export function jsonLicenseText(license: IssuedLicense, tokenDrm: string = license.drm): string {
  if (HEX_IN_JSON.has(tokenDrm)) {
    return bytesToHex(
      license.drm === 'ClearKey' ? utf8Bytes(JSON.stringify(license.clearKey)) : license.bytes,
    );
  }
  switch (license.drm) {
    case 'ClearKey':
      return JSON.stringify(license.clearKey);
    case 'PlayReady':
      return standInPlayReadyResponse(license.bytes);
    case 'FairPlay':
      return bytesToBase64(license.bytes);
    default:
      return bytesToHex(license.bytes);
  }
}

/** json and custom: the license inside the service's object, with the policy it carries. */
export function jsonAnswer(
  license: IssuedLicense,
  policy: EffectivePolicy,
  device: DeviceInfo,
  tokenDrm: string = license.drm,
): JsonLicenseAnswer {
  const answer: JsonLicenseAnswer = {
    license: jsonLicenseText(license, tokenDrm),
    device_info: device,
    persistent: policy.persistent,
  };
  const duration = licenseDuration(policy);
  if (duration !== undefined) answer.license_duration = duration;
  if (policy.rental_duration !== undefined) answer.rental_duration = policy.rental_duration;
  if (policy.playback_duration !== undefined) answer.playback_duration = policy.playback_duration;
  if (policy.expire_date !== undefined) answer.expire_date = policy.expire_date;
  if (policy.renewal_duration !== undefined) {
    answer.renewal = true;
    answer.renewal_duration = policy.renewal_duration;
  }
  return answer;
}

/** The answer to a granted request in the token's response format. */
export function licenseAnswer(
  license: IssuedLicense,
  format: ResponseFormat,
  policy: EffectivePolicy,
  device: DeviceInfo,
  headers: Record<string, string>,
  tokenDrm: string = license.drm,
): Answer {
  if (format !== 'original') {
    return answerJson(jsonAnswer(license, policy, device, tokenDrm), headers);
  }
  const { body, contentType } = originalAnswer(license);
  // The caller's headers are a new object, made for this answer: completed, not copied.
  headers['content-type'] = contentType;
  return { status: 200, headers, body };
}
