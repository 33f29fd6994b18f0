import { SiteKitError, TokenError } from '../errors.ts';
import type { Opened } from '../crypto/cbc-rules.ts';
import type { SiteKeyInput } from '../crypto/site-key.ts';
import { DEFAULT_DRM_TYPE, type DrmType } from '../schemas/drm-type.ts';
import type { TokenPolicy } from '../schemas/policy.ts';
import type { TokenPolicyV2 } from '../schemas/policy-v2.ts';
import { formatTimestamp } from '../schemas/timestamp.ts';
import type { ResponseFormat } from '../schemas/token.ts';
import type { ReadLicenseToken, TokenVersion } from './decode.ts';
import { HASH_ENCODINGS, type HashedFields, type HashEncoding } from './hash-input.ts';
import { readPolicyV1, readPolicyV2 } from './read-policy.ts';
import { checkAccessKey, checkHashEncoding } from './keys.ts';

// What verifying a token is, whichever crypto runs it: the site and time checks, the hash's
// diagnosis, and the result built from the decrypted policy.

/** The service's current guide: a token is valid for 600 s after its timestamp (the main spec: 60). */
export const DEFAULT_VALIDITY_SECONDS = 600;

/** The tolerance for a timestamp in the future: small but not zero (the wire addendum, 4). */
export const DEFAULT_CLOCK_SKEW_SECONDS = 5;

/**
 * The site's keys and the time rules a token is verified with (defaults: validity 600 s, clock
 * skew {@link DEFAULT_CLOCK_SKEW_SECONDS}).
 */
export interface VerifyOptions {
  siteKey: SiteKeyInput;
  accessKey: string;
  /** When given, a token for another site fails with SITE_MISMATCH. */
  siteId?: string;
  /** The time to check against; default now. */
  now?: Date | number;
  /**
   * How long a token is valid after its timestamp; default 600, the service's current guide (the
   * main spec's older text says 60).
   */
  validitySeconds?: number;
  /**
   * How far in the future a timestamp may lie; default 5 (the wire addendum: "small but not zero";
   * the emulator's default too), so a site clock a little ahead does not fail every token.
   */
  clockSkewSeconds?: number;
  /** How a v1 token's hash is encoded; v2 tokens always use the raw digest. */
  hashEncoding?: HashEncoding;
}

/** What one `verify` call adds to the verifier's settings. */
export interface VerifyCallOptions {
  /** The time to check against; default now. */
  now?: Date | number;
  /**
   * The token's JSON (the object the token is the base64 of), for a caller that has decoded it
   * already, to route the token say: the verifier reads this object and does not decode the token
   * string again. It must be a plain object, else MALFORMED_TOKEN. The hash covers the members read
   * (all but the v2 `response_format` and `key_rotation`, which no token proves), so an object that
   * is not the token's can only fail, or verify as that object: never as the token string.
   */
  json?: Record<string, unknown>;
}

interface VerifiedCommon {
  drmType: DrmType;
  siteId: string;
  userId: string;
  cid: string;
  timestamp: string;
  issuedAt: Date;
  expiresAt: Date;
  /** What a reader should know: precedence rules, unknown or aliased members, an absent drm_type. */
  warnings: string[];
}

/** A v1 token (the main spec's): `policy` is the decrypted token data. */
export interface VerifiedLicenseTokenV1 extends VerifiedCommon {
  version: 1;
  policy: TokenPolicy;
}

/** A v2 token: `policy` is the decrypted v2 policy. */
export interface VerifiedLicenseTokenV2 extends VerifiedCommon {
  version: 2;
  policy: TokenPolicyV2;
  /** Outside the hash: not proven to be what the site wrote. */
  responseFormat: ResponseFormat;
  /** Outside the hash: not proven to be what the site wrote. */
  keyRotation: boolean;
}

/** A verified token of either version; `version` tells which. */
export type VerifiedLicenseToken = VerifiedLicenseTokenV1 | VerifiedLicenseTokenV2;

/** The verifier's settings, checked once. */
export interface VerifySettings {
  siteId: string | undefined;
  accessKey: string;
  hashEncoding: HashEncoding;
  validityMs: number;
  skewMs: number;
}

export function verifySettings(options: Omit<VerifyOptions, 'now' | 'siteKey'>): VerifySettings {
  return {
    siteId: options.siteId,
    accessKey: checkAccessKey(options.accessKey),
    hashEncoding: checkHashEncoding(options.hashEncoding),
    validityMs:
      seconds(options.validitySeconds, DEFAULT_VALIDITY_SECONDS, 'validitySeconds') * 1000,
    skewMs:
      seconds(options.clockSkewSeconds, DEFAULT_CLOCK_SKEW_SECONDS, 'clockSkewSeconds') * 1000,
  };
}

export function checkSite(settings: VerifySettings, read: ReadLicenseToken): void {
  const siteId = read.fields.site_id;
  if (settings.siteId !== undefined && siteId !== settings.siteId) {
    throw new TokenError(
      'SITE_MISMATCH',
      `The token is for site "${siteId}", but it was checked with the keys of site "${settings.siteId}": use that site's keys, or issue the token with site ID "${settings.siteId}".`,
    );
  }
}

/** The fields the hash covers, with the spec's default drm_type when the token has none. */
export function hashedOf(read: ReadLicenseToken): HashedFields & { hash: string } {
  const fields = read.fields;
  const data = read.version === 1 ? read.fields.token : read.fields.policy;
  return { ...fields, drm_type: read.drmTypeAsSent ?? DEFAULT_DRM_TYPE, token: data };
}

/** The encoding a token of this version is hashed with. */
export function expectedEncoding(settings: VerifySettings, version: TokenVersion): HashEncoding {
  return version === 1 ? settings.hashEncoding : 'raw-digest';
}

/** The other encodings to try when the expected one does not match, to say what went wrong. */
export function otherEncodings(expected: HashEncoding): HashEncoding[] {
  return HASH_ENCODINGS.filter((e) => e !== expected);
}

// The token's AES-CBC carries no MAC: only a token whose hash checks out may reach the decryption,
// or a forger could learn plaintext bytes from padding errors.
export function hashMismatch(
  version: TokenVersion,
  expected: HashEncoding,
  other: HashEncoding | undefined,
): TokenError {
  let message: string;
  if (other === undefined) {
    message = `The token's hash matches neither hash reading ('hex-text' nor 'raw-digest') with this access key: check that the site's access key is the one from the administration site and that no field was changed after hashing.`;
  } else if (version === 2) {
    message = `The v2 token's hash was made with the '${other}' reading, but v2 tokens hash the raw 32-byte digest: the builder mixed v1's hash into a v2 token.`;
  } else {
    message = `The token's hash was made with hashEncoding '${other}', but '${expected}' was expected: configure both sides with the same hashEncoding.`;
  }
  return new TokenError('HASH_MISMATCH', message);
}

/**
 * The issue and expiry times, or TOKEN_EXPIRED / TOKEN_NOT_YET_VALID; `issuedMs` is the timestamp's
 * time, as the token's read parsed it.
 */
export function checkTime(
  settings: VerifySettings,
  timestamp: string,
  issuedMs: number,
  now: Date | number,
): { issuedMs: number; expiresMs: number } {
  const nowMs = typeof now === 'number' ? now : now.getTime();
  const expiresMs = issuedMs + settings.validityMs;
  if (nowMs > expiresMs) {
    throw new TokenError(
      'TOKEN_EXPIRED',
      `The token expired ${Math.ceil((nowMs - expiresMs) / 1000)} s ago: it is valid for ${settings.validityMs / 1000} s after its timestamp ${timestamp}, and now is ${formatTimestamp(nowMs)}. Fetch a token right before the license request, and check the site's clock.`,
    );
  }
  if (nowMs < issuedMs - settings.skewMs) {
    throw new TokenError(
      'TOKEN_NOT_YET_VALID',
      `The token's timestamp ${timestamp} is ${Math.ceil((issuedMs - nowMs) / 1000)} s in the future (now is ${formatTimestamp(nowMs)}, allowed clock skew ${settings.skewMs / 1000} s): check the site's clock, or allow more clock skew.`,
    );
  }
  return { issuedMs, expiresMs };
}

/**
 * DECRYPT_FAILED for a policy whose ciphertext is not even of the right form (bad base64, not whole
 * blocks): both are visible in the token itself, so naming them tells an attacker nothing.
 */
export function undecryptable(error: unknown): TokenError {
  const reason = error instanceof SiteKitError ? ` (${error.message})` : '';
  return new TokenError(
    'DECRYPT_FAILED',
    `The token data could not be decrypted${reason}: the site key is not the one the token was made with.`,
  );
}

/**
 * The policy JSON of a decrypted token. A bad padding, a plaintext that is not UTF-8 and one that is
 * not JSON fail with one error after the same work (the JSON is parsed whatever the padding): the
 * token's AES-CBC has a fixed IV and no MAC, and anyone holding the access key can make a hash that
 * checks out, so any difference between them is a padding oracle on the policy and its content keys.
 */
export function policyJsonOf(opened: Opened): unknown {
  let json: unknown;
  let parsed = false;
  try {
    json = JSON.parse(opened.text);
    parsed = true;
  } catch {
    parsed = false;
  }
  if (!(opened.intact && parsed)) throw undecryptable(undefined);
  return json;
}

/** The verified token from its read JSON, times and decrypted policy JSON. */
export function verifiedToken(
  read: ReadLicenseToken,
  times: { issuedMs: number; expiresMs: number },
  policyJson: unknown,
): VerifiedLicenseToken {
  const fields = read.fields;
  const drmType = fields.drm_type ?? DEFAULT_DRM_TYPE;
  const issuedAt = new Date(times.issuedMs);
  const expiresAt = new Date(times.expiresMs);
  // Every verified license builds one of these: written out member by member (in the order they
  // always had), not a common part spread into each, which built the object twice.
  if (read.version === 1) {
    const { policy, warnings } = readPolicyV1(policyJson);
    return {
      drmType,
      siteId: fields.site_id,
      userId: fields.user_id,
      cid: fields.cid,
      timestamp: fields.timestamp,
      issuedAt,
      expiresAt,
      version: 1,
      policy,
      warnings: allWarnings(read.warnings, warnings, fields.drm_type === undefined),
    };
  }
  const { policy, warnings } = readPolicyV2(policyJson);
  return {
    drmType,
    siteId: fields.site_id,
    userId: fields.user_id,
    cid: fields.cid,
    timestamp: fields.timestamp,
    issuedAt,
    expiresAt,
    version: 2,
    policy,
    responseFormat: read.fields.response_format ?? 'original',
    keyRotation: read.fields.key_rotation ?? false,
    warnings: allWarnings(read.warnings, warnings, fields.drm_type === undefined),
  };
}

/** The token's warnings, then its policy's, then the absent drm_type's; a new array either way. */
function allWarnings(
  token: readonly string[],
  policy: readonly string[],
  absentDrmType: boolean,
): string[] {
  if (token.length === 0 && policy.length === 0 && !absentDrmType) return [];
  const all = [...token, ...policy];
  if (absentDrmType) all.push('drm_type is absent: "PlayReady" was assumed');
  return all;
}

function seconds(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
    throw new SiteKitError('INVALID_INPUT', `${name}: must be a non-negative number of seconds.`);
  }
  return value;
}
