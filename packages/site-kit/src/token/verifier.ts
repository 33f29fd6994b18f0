import { decryptWithKey } from '../crypto/aes.ts';
import { toAesKey, type SiteKeyInput } from '../crypto/site-key.ts';
import { SiteKitError, TokenError } from '../errors.ts';
import { DEFAULT_DRM_TYPE, type DrmType } from '../schemas/drm-type.ts';
import type { TokenPolicy } from '../schemas/policy.ts';
import type { TokenPolicyV2 } from '../schemas/policy-v2.ts';
import { formatTimestamp, parseTimestamp } from '../schemas/timestamp.ts';
import type { ResponseFormat } from '../schemas/token.ts';
import { readLicenseToken, type TokenVersion } from './decode.ts';
import {
  HASH_ENCODINGS,
  hashesEqual,
  tokenHash,
  type HashedFields,
  type HashEncoding,
} from './hash.ts';
import { readPolicyV1, readPolicyV2 } from './read-policy.ts';
import { checkAccessKey, checkHashEncoding, type ValidatedCredentials } from './keys.ts';

/** The service's current guide: a token is valid for 600 s after its timestamp (the main spec: 60). */
export const DEFAULT_VALIDITY_SECONDS = 600;

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
  /** How far in the future a timestamp may lie; default 0. */
  clockSkewSeconds?: number;
  /** How a v1 token's hash is encoded; v2 tokens always use the raw digest. */
  hashEncoding?: HashEncoding;
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

export type VerifiedLicenseToken = VerifiedLicenseTokenV1 | VerifiedLicenseTokenV2;

export interface TokenVerifier {
  verify(token: string, options?: { now?: Date | number }): VerifiedLicenseToken;
}

type Site = Omit<ValidatedCredentials, 'siteId'> & { siteId: string | undefined };

/** Creates a verifier whose keys are checked once: what the license service does with each token. */
export function createTokenVerifier(options: Omit<VerifyOptions, 'now'>): TokenVerifier {
  const site: Site = {
    siteId: options.siteId,
    aesKey: toAesKey(options.siteKey),
    accessKey: checkAccessKey(options.accessKey),
    hashEncoding: checkHashEncoding(options.hashEncoding),
  };
  const validityMs =
    seconds(options.validitySeconds, DEFAULT_VALIDITY_SECONDS, 'validitySeconds') * 1000;
  const skewMs = seconds(options.clockSkewSeconds, 0, 'clockSkewSeconds') * 1000;
  return {
    verify: (token, call) => verify(site, validityMs, skewMs, token, call?.now ?? Date.now()),
  };
}

/** One-off form of `createTokenVerifier(options).verify(token)`. */
export function verifyLicenseToken(token: string, options: VerifyOptions): VerifiedLicenseToken {
  return createTokenVerifier(options).verify(token, { now: options.now ?? Date.now() });
}

function verify(
  site: Site,
  validityMs: number,
  skewMs: number,
  token: string,
  now: Date | number,
): VerifiedLicenseToken {
  const read = readLicenseToken(token);
  const fields = read.fields;
  if (site.siteId !== undefined && fields.site_id !== site.siteId) {
    throw new TokenError(
      'SITE_MISMATCH',
      `The token is for site "${fields.site_id}", but it was checked with the keys of site "${site.siteId}": use that site's keys, or issue the token with site ID "${site.siteId}".`,
    );
  }
  const drmType = fields.drm_type ?? DEFAULT_DRM_TYPE;
  const data = read.version === 1 ? read.fields.token : read.fields.policy;
  checkHash(site, read.version, { ...fields, drm_type: drmType, token: data });

  const issuedMs = parseTimestamp(fields.timestamp) as number;
  const nowMs = typeof now === 'number' ? now : now.getTime();
  const expiresMs = issuedMs + validityMs;
  if (nowMs > expiresMs) {
    throw new TokenError(
      'TOKEN_EXPIRED',
      `The token expired ${Math.ceil((nowMs - expiresMs) / 1000)} s ago: it is valid for ${validityMs / 1000} s after its timestamp ${fields.timestamp}, and now is ${formatTimestamp(nowMs)}. Fetch a token right before the license request, and check the site's clock.`,
    );
  }
  if (nowMs < issuedMs - skewMs) {
    throw new TokenError(
      'TOKEN_NOT_YET_VALID',
      `The token's timestamp ${fields.timestamp} is ${Math.ceil((issuedMs - nowMs) / 1000)} s in the future (now is ${formatTimestamp(nowMs)}, allowed clock skew ${skewMs / 1000} s): check the site's clock, or allow more clock skew.`,
    );
  }

  const plaintext = decryptPolicy(site, data);
  const common = {
    drmType,
    siteId: fields.site_id,
    userId: fields.user_id,
    cid: fields.cid,
    timestamp: fields.timestamp,
    issuedAt: new Date(issuedMs),
    expiresAt: new Date(expiresMs),
  };
  const absentDrmType =
    fields.drm_type === undefined ? ['drm_type is absent: "PlayReady" was assumed'] : [];
  if (read.version === 1) {
    const { policy, warnings } = readPolicyV1(plaintext);
    return { ...common, version: 1, policy, warnings: [...warnings, ...absentDrmType] };
  }
  const { policy, warnings } = readPolicyV2(plaintext);
  return {
    ...common,
    version: 2,
    policy,
    responseFormat: read.fields.response_format ?? 'original',
    keyRotation: read.fields.key_rotation ?? false,
    warnings: [...read.warnings, ...warnings, ...absentDrmType],
  };
}

// The token's AES-CBC carries no MAC: only a token whose hash checks out may reach the decryption,
// or a forger could learn plaintext bytes from padding errors.
function checkHash(
  site: Site,
  version: TokenVersion,
  hashed: HashedFields & { hash: string },
): void {
  const expected = version === 1 ? site.hashEncoding : 'raw-digest';
  if (hashesEqual(tokenHash(site.accessKey, hashed, expected), hashed.hash)) return;
  const other = HASH_ENCODINGS.find(
    (e) => e !== expected && hashesEqual(tokenHash(site.accessKey, hashed, e), hashed.hash),
  );
  let message: string;
  if (other === undefined) {
    message = `The token's hash matches neither hash reading ('hex-text' nor 'raw-digest') with this access key: check that the site's access key is the one from the administration site and that no field was changed after hashing.`;
  } else if (version === 2) {
    message = `The v2 token's hash was made with the '${other}' reading, but v2 tokens hash the raw 32-byte digest: the builder mixed v1's hash into a v2 token.`;
  } else {
    message = `The token's hash was made with hashEncoding '${other}', but '${expected}' was expected: configure both sides with the same hashEncoding.`;
  }
  throw new TokenError('HASH_MISMATCH', message);
}

function decryptPolicy(site: Site, field: string): unknown {
  try {
    return JSON.parse(decryptWithKey(field, site.aesKey));
  } catch (error) {
    const reason = error instanceof SiteKitError ? ` (${error.message})` : ' (it is not JSON)';
    throw new TokenError(
      'DECRYPT_FAILED',
      `The token data could not be decrypted${reason}: the site key is not the one the token was made with.`,
    );
  }
}

function seconds(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
    throw new SiteKitError('INVALID_INPUT', `${name}: must be a non-negative number of seconds.`);
  }
  return value;
}
