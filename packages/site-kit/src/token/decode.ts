import { isBase64 } from '../crypto/base64.ts';
import { TokenError } from '../errors.ts';
import { describeIssues } from '../schemas/issues.ts';
import { licenseTokenSchema, type LicenseToken } from '../schemas/token.ts';

/**
 * Reads the token JSON out of a token string and checks each field's form. Needs no keys and proves
 * nothing: `verifyLicenseToken` checks the hash, the time and the policy.
 */
export function decodeLicenseToken(token: string): LicenseToken {
  if (typeof token !== 'string' || token.length === 0) {
    throw new TokenError(
      'MALFORMED_TOKEN',
      'The token is empty: pass the base64 string the site issued.',
    );
  }
  const trimmed = token.trim();
  if (!isBase64(trimmed)) {
    throw new TokenError(
      'MALFORMED_TOKEN',
      'The token is not standard base64: it must be the base64 of the token JSON exactly as the site issued it (check for cut, URL-encoded or URL-safe text).',
    );
  }
  let json: unknown;
  try {
    json = JSON.parse(Buffer.from(trimmed, 'base64').toString('utf8'));
  } catch {
    throw new TokenError(
      'MALFORMED_TOKEN',
      'The token is base64, but what it holds is not JSON: a token is base64 of the token JSON object.',
    );
  }
  const parsed = licenseTokenSchema.safeParse(json);
  if (!parsed.success) {
    const code = json === null || typeof json !== 'object' || Array.isArray(json);
    throw new TokenError(
      code ? 'MALFORMED_TOKEN' : 'INVALID_FIELD',
      code
        ? 'The token holds JSON that is not an object: a token is base64 of the token JSON object.'
        : `The token JSON breaks the spec: ${describeIssues(parsed.error, '')}.`,
    );
  }
  return parsed.data;
}
