import { EmulatorError } from './errors.ts';
import type { Call } from './http/exchange.ts';
import { base64Text } from './web/bytes.ts';

/**
 * The token or custom data of a license request: from the configured header, or else from the query
 * parameter of the same name (the license service takes both; Safari's FairPlay renewals use the
 * query). The query is split by hand because URLSearchParams reads "+" as a space, and a base64
 * value put in a URL without escaping keeps its "+".
 */
export function readLicenseValue(call: Call, name: string): string | undefined {
  const header = call.header(name);
  if (header !== null && header.trim() !== '') return header.trim();
  const query = call.query;
  if (query === '') return undefined;
  for (const pair of query.split('&')) {
    const at = pair.indexOf('=');
    if (at <= 0 || decode(pair.slice(0, at)).toLowerCase() !== name) continue;
    const value = decode(pair.slice(at + 1)).trim();
    if (value !== '') return value;
  }
  return undefined;
}

function decode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

export interface ClassifiedValue {
  kind: 'token' | 'gateway';
  /** The JSON object the value is base64 of. */
  json: Record<string, unknown>;
  /** Whether the value is standard, padded base64, the only form the service takes. */
  standard: boolean;
}

/**
 * A license token (v1 has a `token` member, v2 a `policy` member) and gateway custom data
 * (`{"drm_type","site_id","data"}`) are both base64 of a JSON object; the members tell them apart.
 */
export function classifyLicenseValue(value: string, name: string): ClassifiedValue {
  let json: unknown;
  const decoded = base64Text(value);
  try {
    json = JSON.parse(decoded.text);
  } catch {
    json = undefined;
  }
  if (json === null || typeof json !== 'object' || Array.isArray(json)) {
    throw new EmulatorError(
      'MALFORMED_TOKEN',
      `The ${name} value is not base64 of a JSON object, so it is neither a license token nor gateway custom data: send the token exactly as the site issued it (no URL encoding, no "Bearer " prefix), or the custom data the site gave the player.`,
    );
  }
  const members = json as Record<string, unknown>;
  const gateway = 'data' in members && !('token' in members) && !('policy' in members);
  const standard = decoded.standard;
  // A token in another form is left to site-kit, which refuses it in its own words; URL-safe or
  // unpadded base64 is a player bug to report.
  if (gateway && !standard) {
    throw new EmulatorError(
      'INVALID_CUSTOM_DATA',
      'The custom data is not standard base64 (check for URL-safe, URL-encoded, cut or unpadded text): send it exactly as the site made it.',
    );
  }
  return { kind: gateway ? 'gateway' : 'token', json: members, standard };
}
