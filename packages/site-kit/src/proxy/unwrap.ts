import type { DrmType } from '../schemas/drm-type.ts';
import { ProxyFailure } from './errors.ts';
import type { UpstreamAnswer } from './upstream.ts';

export interface Unwrapped {
  answer: UpstreamAnswer;
  /** The service's refusal code, when the answer is a refusal. */
  errorCode?: string;
  deviceInfo?: unknown;
}

const HEX = /^(?:[0-9a-fA-F]{2})+$/;

/**
 * Reads a 200 answer of the service the way a client must (the wire addendum, section 2): JSON with
 * `errorCode` is a refusal and stays as it came; JSON with `license` is a json-format license, which
 * `unwrap` turns into the license itself (Widevine's hex text into bytes); anything else is the
 * license already. Only small JSON-looking bodies are parsed.
 */
export function readAnswer(answer: UpstreamAnswer, drmType: DrmType, unwrap: boolean): Unwrapped {
  const json = jsonObject(answer);
  if (json === undefined) return { answer };
  const code = json['errorCode'];
  if (code !== undefined) {
    return {
      answer,
      errorCode: typeof code === 'number' ? String(code) : String(code).slice(0, 20),
    };
  }
  if (!unwrap || !('license' in json)) return { answer };
  const license = json['license'];
  if (typeof license !== 'string' || license.length === 0) {
    throw new ProxyFailure(
      'UPSTREAM_BAD_ANSWER',
      'The license service answered json without a license text; the proxy cannot unwrap it.',
    );
  }
  const binary = drmType === 'Widevine' && HEX.test(license);
  return {
    answer: {
      status: answer.status,
      contentType: binary ? 'application/octet-stream' : 'text/plain; charset=utf-8',
      bytes: binary ? hexBytes(license) : new TextEncoder().encode(license),
    },
    deviceInfo: json['device_info'],
  };
}

function jsonObject(answer: UpstreamAnswer): Record<string, unknown> | undefined {
  if (answer.status !== 200) return undefined;
  const { bytes } = answer;
  let i = 0;
  while (i < bytes.length && (bytes[i] === 0x20 || bytes[i] === 0x0a || bytes[i] === 0x0d)) i++;
  if (bytes[i] !== 0x7b /* { */) return undefined;
  try {
    const value: unknown = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
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
