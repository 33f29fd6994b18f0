import { EmulatorError } from './errors.ts';

/**
 * The license request header carries either a license token (base64 of the token JSON, which has a
 * `token` member) or gateway-mode custom data (base64 of `{"drm_type","site_id","data"}`). Both are
 * base64 of a JSON object; the members tell them apart.
 */
export function headerKind(value: string, headerName: string): 'token' | 'gateway' {
  let json: unknown;
  try {
    json = JSON.parse(Buffer.from(value.trim(), 'base64').toString('utf8'));
  } catch {
    json = undefined;
  }
  if (json === null || typeof json !== 'object' || Array.isArray(json)) {
    throw new EmulatorError(
      'MALFORMED_TOKEN',
      `The ${headerName} header is not base64 of a JSON object, so it is neither a license token nor gateway custom data: send the token exactly as the site issued it (no URL encoding, no "Bearer " prefix), or the custom data the site gave the player.`,
    );
  }
  return 'data' in json && !('token' in json) ? 'gateway' : 'token';
}
