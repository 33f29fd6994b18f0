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
import { isPlainObject } from '../schemas/plain-object.ts';
import { parseTimestamp } from '../schemas/timestamp.ts';
import { drmTypeCaseWarning } from './drm-type-case.ts';
import { readTokenFast } from './read-token-fast.ts';

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
  return readTokenJson(parseJson(token)).read;
}

/** A token read for verifying: the token as read, and its timestamp's time, parsed once. */
export interface TimedRead {
  read: ReadLicenseToken;
  issuedMs: number;
}

/**
 * The verifiers' read: of `json` when the caller has decoded the token already (it must be a plain
 * object, as JSON.parse makes it), else of the token string.
 */
export function readTokenTimed(token: string, json: unknown): TimedRead {
  return readTokenJson(json === undefined ? parseJson(token) : tokenObject(json));
}

// The usual token by hand, anything else by the schema, which words the error.
function readTokenJson(json: Record<string, unknown>): TimedRead {
  return readTokenFast(json) ?? readTokenBySchema(json);
}

/** The token JSON read by the token schemas: the path for whatever the hand-written reader leaves. */
export function readTokenBySchema(json: Record<string, unknown>): TimedRead {
  const version = versionOf(json);
  const sent = json['drm_type'];
  const drmTypeAsSent = typeof sent === 'string' ? sent : undefined;
  if (version === 1) {
    const parsed = licenseTokenV1Schema.safeParse(json);
    if (!parsed.success) throw invalidField(parsed.error.issues, describeIssues(parsed.error, ''));
    const warnings = drmTypeCaseWarning(drmTypeAsSent, parsed.data.drm_type);
    return timed({ version, fields: parsed.data, warnings, drmTypeAsSent });
  }
  const parsed = parseTolerant(licenseTokenV2Schema, json, '');
  if (!parsed.success) throw invalidField(parsed.issues, parsed.message);
  const warnings = [...drmTypeCaseWarning(drmTypeAsSent, parsed.data.drm_type), ...parsed.warnings];
  return timed({ version, fields: parsed.data, warnings, drmTypeAsSent });
}

// The schema has checked the timestamp: it is a real time.
const timed = (read: ReadLicenseToken): TimedRead => ({
  read,
  issuedMs: parseTimestamp(read.fields.timestamp) as number,
});

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
  return tokenObject(json);
}

function tokenObject(json: unknown): Record<string, unknown> {
  if (!isPlainObject(json)) {
    throw new TokenError(
      'MALFORMED_TOKEN',
      'The token holds JSON that is not an object: a token is base64 of the token JSON object.',
    );
  }
  return json;
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
