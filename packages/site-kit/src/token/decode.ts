import { base64ToText, isBase64 } from '../encoding/base64.ts';
import { TokenError } from '../errors.ts';
import { parseTolerant } from '../schemas/tolerant.ts';
import {
  licenseTokenV1Schema,
  licenseTokenV2Schema,
  type LicenseToken,
  type LicenseTokenV1,
  type LicenseTokenV2,
} from '../schemas/token.ts';
import { describeIssues } from '../schemas/issues.ts';

/** A token's format version: 1 has a `token` member (the main spec's), 2 a `policy` member. */
export type TokenVersion = 1 | 2;

/** A token's JSON, its version (told by its members) and what a reader should know about it. */
export type ReadLicenseToken = (
  { version: 1; fields: LicenseTokenV1 } | { version: 2; fields: LicenseTokenV2 }
) & {
  warnings: string[];
  /**
   * drm_type exactly as the token carries it (undefined when absent): the hash covers this text, and
   * `fields.drm_type` is its canonical spelling.
   */
  drmTypeAsSent: string | undefined;
};

/**
 * Reads the token JSON out of a token string and checks each field's form. Needs no keys and proves
 * nothing: `verifyLicenseToken` checks the hash, the time and the policy.
 */
export function decodeLicenseToken(token: string): LicenseToken {
  return readLicenseToken(token).fields;
}

/**
 * `decodeLicenseToken` with the version and warnings: v2 members the spec does not know are
 * warnings (builders disagree on what they emit), wrong values are errors.
 */
export function readLicenseToken(token: string): ReadLicenseToken {
  const json = parseJson(token);
  const version = versionOf(json);
  const sent = json['drm_type'];
  const drmTypeAsSent = typeof sent === 'string' ? sent : undefined;
  if (version === 1) {
    const parsed = licenseTokenV1Schema.safeParse(json);
    if (!parsed.success) throw invalidField(parsed.error.issues, describeIssues(parsed.error, ''));
    const warnings = caseWarning(drmTypeAsSent, parsed.data.drm_type);
    return { version, fields: parsed.data, warnings, drmTypeAsSent };
  }
  const parsed = parseTolerant(licenseTokenV2Schema, json, '');
  if (!parsed.success) throw invalidField(parsed.issues, parsed.message);
  const warnings = [...caseWarning(drmTypeAsSent, parsed.data.drm_type), ...parsed.warnings];
  return { version, fields: parsed.data, warnings, drmTypeAsSent };
}

// The service's own player samples ship demo tokens with "widevine": read, and said.
function caseWarning(sent: string | undefined, canonical: string | undefined): string[] {
  return sent !== undefined && sent !== canonical
    ? [
        `drm_type: "${sent}" read as "${canonical}" (writers write that spelling; the hash covers the text as sent)`,
      ]
    : [];
}

function parseJson(token: string): Record<string, unknown> {
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
    json = JSON.parse(base64ToText(trimmed));
  } catch {
    throw new TokenError(
      'MALFORMED_TOKEN',
      'The token is base64, but what it holds is not JSON: a token is base64 of the token JSON object.',
    );
  }
  if (json === null || typeof json !== 'object' || Array.isArray(json)) {
    throw new TokenError(
      'MALFORMED_TOKEN',
      'The token holds JSON that is not an object: a token is base64 of the token JSON object.',
    );
  }
  return json as Record<string, unknown>;
}

function versionOf(json: Record<string, unknown>): TokenVersion {
  const v1 = 'token' in json;
  const v2 = 'policy' in json;
  if (v1 !== v2) return v1 ? 1 : 2;
  throw new TokenError(
    'INVALID_FIELD',
    v1
      ? 'The token JSON has both "token" (v1) and "policy" (v2): a token carries exactly one of them.'
      : 'The token JSON breaks the spec: token: is required (a v1 token carries "token", a v2 token "policy").',
    { field: v1 ? 'policy' : 'token' },
  );
}

function invalidField(issues: { path: PropertyKey[] }[], description: string): TokenError {
  const field = issues[0]?.path[0];
  return new TokenError('INVALID_FIELD', `The token JSON breaks the spec: ${description}.`, {
    ...(typeof field === 'string' ? { field } : {}),
  });
}
