import type { ResponseFormat } from './authorization.ts';
import type { ClearKeyLicense } from './clearkey-license.ts';
import { licenseDuration, type EffectivePolicy } from './policy.ts';
import { bytesToHex } from './web/bytes.ts';
import { sha256 } from './web/crypto.ts';

/** `device_info` of a json-format answer; a ClearKey CDM reports no device, so these are the emulator's. */
export interface DeviceInfo {
  /** A stable pseudonym of the browser (a hash of its User-Agent), or "" without one. */
  device_id: string;
  device_model: string;
  os_version: string;
  /** The stream ID the player sent, else the request ID. */
  session_id: string;
  is_chrome_cdm: boolean;
}

/** The json (and deprecated custom) response format of the license service, for ClearKey. */
export interface JsonLicenseAnswer {
  /** The ClearKey license JSON as text: what the player hands to the CDM after unwrapping. */
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

export async function deviceInfo(userAgent: string | null, sessionId: string): Promise<DeviceInfo> {
  return {
    device_id: userAgent ? bytesToHex(await sha256(userAgent)).slice(0, 32) : '',
    device_model: 'ClearKey',
    os_version: '',
    session_id: sessionId,
    is_chrome_cdm: userAgent !== null && /\bChrom(e|ium)\//.test(userAgent),
  };
}

/** original: the license itself; json and custom: the license as text inside the service's object. */
export function licenseAnswer(
  license: ClearKeyLicense,
  format: ResponseFormat,
  policy: EffectivePolicy,
  device: DeviceInfo,
): ClearKeyLicense | JsonLicenseAnswer {
  if (format === 'original') return license;
  const answer: JsonLicenseAnswer = {
    license: JSON.stringify(license),
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
