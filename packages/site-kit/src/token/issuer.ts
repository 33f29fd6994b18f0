import { z } from 'zod';
import { mustBe } from '../schemas/must-be.ts';
import { encryptWithKey } from '../crypto/aes.ts';
import { SiteKitError } from '../errors.ts';
import { DEFAULT_DRM_TYPE, drmTypeSchema, type DrmType } from '../schemas/drm-type.ts';
import { describeIssues } from '../schemas/issues.ts';
import { tokenPolicySchema, type TokenPolicy } from '../schemas/policy.ts';
import { formatTimestamp, timestampSchema } from '../schemas/timestamp.ts';
import { tokenHash } from './hash.ts';
import { validateCredentials, type SiteCredentials, type ValidatedCredentials } from './keys.ts';

/** The spec's user ID for tokens that carry no user. */
export const NO_USER_ID = 'LICENSETOKEN';

export interface IssueOptions {
  /** Content ID, the same as used in packaging. */
  cid: string;
  /** Default "LICENSETOKEN". */
  userId?: string;
  /** Default "PlayReady", the spec's default. */
  drmType?: DrmType;
  /** The token data: playback_policy, security_policy, external_key in the spec's shape. */
  policy?: TokenPolicy;
  /** Default now. A Date is written in the spec's format, whole seconds. */
  timestamp?: string | Date;
}

export interface TokenIssuer {
  /** Builds a token: base64 of the token JSON, ready to hand to the player. */
  issue(options: IssueOptions): string;
}

const issueSchema = z.strictObject(
  {
    cid: z.string({ error: mustBe('a string') }).min(1, 'must not be empty'),
    userId: z
      .string({ error: mustBe('a string') })
      .min(1, 'must not be empty')
      .optional(),
    drmType: drmTypeSchema.optional(),
    policy: z.unknown().optional(),
    timestamp: z.union([timestampSchema, z.date()]).optional(),
  },
  { error: mustBe('an object') },
);

// The spec fixes the IV, so a policy always encrypts to the same token field: cache it per issuer.
const POLICY_CACHE_LIMIT = 256;

/** Creates an issuer whose keys are checked once, here; `issue` then only does per-token work. */
export function createTokenIssuer(options: SiteCredentials): TokenIssuer {
  const site = validateCredentials(options);
  const tokenFields = new Map<string, string>();

  function tokenField(policy: unknown): string {
    const key = policy === undefined ? '' : JSON.stringify(policy);
    const cached = tokenFields.get(key);
    if (cached !== undefined) return cached;
    const field = encryptPolicy(site, policy);
    if (tokenFields.size >= POLICY_CACHE_LIMIT) tokenFields.clear();
    tokenFields.set(key, field);
    return field;
  }

  return {
    issue(input) {
      const parsed = issueSchema.safeParse(input);
      if (!parsed.success)
        throw new SiteKitError('INVALID_INPUT', describeIssues(parsed.error, ''));
      const { cid, userId = NO_USER_ID, drmType = DEFAULT_DRM_TYPE, timestamp } = parsed.data;
      const fields = {
        drm_type: drmType,
        site_id: site.siteId,
        user_id: userId,
        cid,
        token: tokenField(parsed.data.policy),
        timestamp:
          typeof timestamp === 'string' ? timestamp : formatTimestamp(timestamp ?? Date.now()),
      };
      const hash = tokenHash(site.accessKey, fields, site.hashEncoding);
      return Buffer.from(JSON.stringify({ ...fields, hash }), 'utf8').toString('base64');
    },
  };
}

/** One-off form of `createTokenIssuer(options).issue(options)`. */
export function createLicenseToken(options: SiteCredentials & IssueOptions): string {
  const { siteId, siteKey, accessKey, hashEncoding, ...issue } = options;
  return createTokenIssuer({ siteId, siteKey, accessKey, hashEncoding }).issue(issue);
}

function encryptPolicy(site: ValidatedCredentials, policy: unknown): string {
  const parsed = tokenPolicySchema.safeParse(policy ?? {});
  if (!parsed.success)
    throw new SiteKitError('INVALID_POLICY', describeIssues(parsed.error, 'policy'));
  return encryptWithKey(JSON.stringify(parsed.data), site.aesKey);
}
