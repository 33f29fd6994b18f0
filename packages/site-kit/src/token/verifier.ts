import { decryptWithKey } from '../crypto/aes.ts';
import { toAesKey, type SiteKeyInput } from '../crypto/site-key.ts';
import { SiteKitError, TokenError } from '../errors.ts';
import { DEFAULT_DRM_TYPE, type DrmType } from '../schemas/drm-type.ts';
import { describeIssues } from '../schemas/issues.ts';
import {
  lenientTokenPolicySchema,
  playbackPolicyConflicts,
  type TokenPolicy,
} from '../schemas/policy.ts';
import { formatTimestamp, parseTimestamp } from '../schemas/timestamp.ts';
import { decodeLicenseToken } from './decode.ts';
import { HASH_ENCODINGS, hashesEqual, tokenHash, type HashEncoding } from './hash.ts';
import { checkAccessKey, checkHashEncoding, type ValidatedCredentials } from './keys.ts';

export interface VerifyOptions {
  siteKey: SiteKeyInput;
  accessKey: string;
  /** When given, a token for another site fails with SITE_MISMATCH. */
  siteId?: string;
  /** The time to check against; default now. */
  now?: Date | number;
  /** How long a token is valid after its timestamp; default 60, the spec's value. */
  validitySeconds?: number;
  /** How far in the future a timestamp may lie; default 0. */
  clockSkewSeconds?: number;
  hashEncoding?: HashEncoding;
}

export interface VerifiedLicenseToken {
  drmType: DrmType;
  siteId: string;
  userId: string;
  cid: string;
  timestamp: string;
  issuedAt: Date;
  expiresAt: Date;
  /** The decrypted token data. */
  policy: TokenPolicy;
  /** Rules the token breaks that the license service resolves by the spec's precedence. */
  warnings: string[];
}

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
  const validityMs = seconds(options.validitySeconds, 60, 'validitySeconds') * 1000;
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
  const fields = decodeLicenseToken(token);
  if (site.siteId !== undefined && fields.site_id !== site.siteId) {
    throw new TokenError(
      'SITE_MISMATCH',
      `The token is for site "${fields.site_id}", but it was checked with the keys of site "${site.siteId}": use that site's keys, or issue the token with site ID "${site.siteId}".`,
    );
  }
  const drmType = fields.drm_type ?? DEFAULT_DRM_TYPE;
  const hashed = { ...fields, drm_type: drmType };

  // The token's AES-CBC carries no MAC: only a token whose hash checks out may reach the decryption,
  // or a forger could learn plaintext bytes from padding errors.
  if (!hashesEqual(tokenHash(site.accessKey, hashed, site.hashEncoding), fields.hash)) {
    const other = HASH_ENCODINGS.find(
      (e) =>
        e !== site.hashEncoding && hashesEqual(tokenHash(site.accessKey, hashed, e), fields.hash),
    );
    throw new TokenError(
      'HASH_MISMATCH',
      other
        ? `The token's hash was made with hashEncoding '${other}', but '${site.hashEncoding}' was expected: configure both sides with the same hashEncoding.`
        : `The token's hash matches neither hash reading ('hex-text' nor 'raw-digest') with this access key: check that the site's access key is the one from the administration site and that no field was changed after hashing.`,
    );
  }

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

  const policy = decryptPolicy(site, fields.token);
  const warnings = playbackPolicyConflicts(policy.playback_policy ?? {}).map(
    (c) => `playback_policy.${c.path} ${c.message}`,
  );
  if (fields.drm_type === undefined) warnings.push('drm_type is absent: "PlayReady" was assumed');
  return {
    drmType,
    siteId: fields.site_id,
    userId: fields.user_id,
    cid: fields.cid,
    timestamp: fields.timestamp,
    issuedAt: new Date(issuedMs),
    expiresAt: new Date(expiresMs),
    policy,
    warnings,
  };
}

function decryptPolicy(site: Site, field: string): TokenPolicy {
  let json: unknown;
  try {
    json = JSON.parse(decryptWithKey(field, site.aesKey));
  } catch (error) {
    const reason = error instanceof SiteKitError ? ` (${error.message})` : ' (it is not JSON)';
    throw new TokenError(
      'DECRYPT_FAILED',
      `The token data could not be decrypted${reason}: the site key is not the one the token was made with.`,
    );
  }
  const parsed = lenientTokenPolicySchema.safeParse(json);
  if (!parsed.success) {
    throw new TokenError(
      'INVALID_POLICY',
      `The token data breaks the spec: ${describeIssues(parsed.error, 'policy')}.`,
    );
  }
  return parsed.data;
}

function seconds(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
    throw new SiteKitError('INVALID_INPUT', `${name}: must be a non-negative number of seconds.`);
  }
  return value;
}
