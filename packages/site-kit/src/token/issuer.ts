import { z } from 'zod';
import { mustBe } from '../schemas/must-be.ts';
import { encryptWithKey } from '../crypto/aes.ts';
import { SiteKitError } from '../errors.ts';
import { DEFAULT_DRM_TYPE, DRM_TYPES, drmTypeSchema, type DrmType } from '../schemas/drm-type.ts';
import { describeIssues } from '../schemas/issues.ts';
import { tokenPolicySchema, type TokenPolicy } from '../schemas/policy.ts';
import { tokenHash } from './hash.ts';
import { createTimestampText } from './timestamp-memo.ts';
import { validateCredentials, type SiteCredentials } from './keys.ts';

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
  /**
   * Checks and encrypts a policy once, for policies used again and again (a rental, a subscription):
   * `issue({ policy: prepared })` then skips serializing it. The returned copy is frozen.
   */
  preparePolicy(policy: TokenPolicy): PreparedPolicy;
}

declare const prepared: unique symbol;
/** A policy checked and encrypted by `preparePolicy`; usable wherever a TokenPolicy is. */
export type PreparedPolicy = TokenPolicy & { readonly [prepared]: true };

export const issueSchema = z.strictObject(
  {
    cid: z.string({ error: mustBe('a string') }).min(1, 'must not be empty'),
    userId: z
      .string({ error: mustBe('a string') })
      .min(1, 'must not be empty')
      .optional(),
    drmType: drmTypeSchema.optional(),
    policy: z.unknown().optional(),
    // Checked by createTimestampText, which remembers the last valid one.
    timestamp: z
      .union([z.string(), z.date()], { error: mustBe('a yyyy-mm-ddThh:mm:ssZ string or a Date') })
      .optional(),
  },
  { error: mustBe('an object') },
);

const ISSUE_KEYS = new Set(['cid', 'userId', 'drmType', 'policy', 'timestamp']);
const DRM = new Set<unknown>(DRM_TYPES);
const text = (v: unknown) => typeof v === 'string' && v.length > 0;

/**
 * The issue options, checked. Issuing is a hot path and a zod parse costs as much as the token's
 * hash, so well-formed options pass a plain check of the same rules; anything else goes to zod,
 * which words the error.
 */
export function checkIssue(input: IssueOptions): IssueOptions {
  if (
    typeof input === 'object' &&
    input !== null &&
    text(input.cid) &&
    (input.userId === undefined || text(input.userId)) &&
    (input.drmType === undefined || DRM.has(input.drmType)) &&
    (input.timestamp === undefined ||
      typeof input.timestamp === 'string' ||
      (input.timestamp instanceof Date && !Number.isNaN(input.timestamp.getTime()))) &&
    onlyKnownKeys(input)
  ) {
    return input;
  }
  const parsed = issueSchema.safeParse(input);
  if (!parsed.success) throw new SiteKitError('INVALID_INPUT', describeIssues(parsed.error, ''));
  return parsed.data as IssueOptions;
}

function onlyKnownKeys(input: object): boolean {
  for (const key in input) if (!ISSUE_KEYS.has(key)) return false;
  return true;
}

// The spec fixes the IV, so a policy always encrypts to the same token field: cache it per issuer.
const POLICY_CACHE_LIMIT = 256;

/** Creates an issuer whose keys are checked once, here; `issue` then only does per-token work. */
export function createTokenIssuer(options: SiteCredentials): TokenIssuer {
  const site = validateCredentials(options);
  const tokenFields = new Map<string, string>();
  const preparedFields = new WeakMap<object, string>();
  const timestampText = createTimestampText();
  const siteIdJson = JSON.stringify(site.siteId);

  function tokenField(policy: unknown): string {
    const preparedField =
      typeof policy === 'object' && policy !== null && preparedFields.get(policy);
    if (preparedField) return preparedField;
    // Keyed by the checked, canonical token data: what is encrypted, so a hit is always right.
    const data = JSON.stringify(parsePolicy(policy));
    const cached = tokenFields.get(data);
    if (cached !== undefined) return cached;
    const field = encryptWithKey(data, site.aesKey);
    if (tokenFields.size >= POLICY_CACHE_LIMIT) tokenFields.clear();
    tokenFields.set(data, field);
    return field;
  }

  return {
    issue(input) {
      const { cid, userId = NO_USER_ID, drmType = DEFAULT_DRM_TYPE, ...rest } = checkIssue(input);
      const token = tokenField(rest.policy);
      const timestamp = timestampText(rest.timestamp);
      const fields = {
        drm_type: drmType,
        site_id: site.siteId,
        user_id: userId,
        cid,
        token,
        timestamp,
      };
      const hash = tokenHash(site.accessKey, fields, site.hashEncoding);
      // The same text JSON.stringify gives for these members in this order: drm_type, token,
      // timestamp and hash are from closed alphabets (checked enum, base64, the checked time
      // format), so only the free-text members need escaping.
      const json = `{"drm_type":"${drmType}","site_id":${siteIdJson},"user_id":${JSON.stringify(userId)},"cid":${JSON.stringify(cid)},"token":"${token}","timestamp":"${timestamp}","hash":"${hash}"}`;
      return Buffer.from(json, 'utf8').toString('base64');
    },
    preparePolicy(policy) {
      const canonical = parsePolicy(policy);
      const copy = deepFreeze(canonical) as PreparedPolicy;
      preparedFields.set(copy, encryptWithKey(JSON.stringify(canonical), site.aesKey));
      return copy;
    },
  };
}

/** One-off form of `createTokenIssuer(options).issue(options)`. */
export function createLicenseToken(options: SiteCredentials & IssueOptions): string {
  const { siteId, siteKey, accessKey, hashEncoding, ...issue } = options;
  return createTokenIssuer({ siteId, siteKey, accessKey, hashEncoding }).issue(issue);
}

function parsePolicy(policy: unknown): TokenPolicy {
  const parsed = tokenPolicySchema.safeParse(policy ?? {});
  if (!parsed.success) {
    throw new SiteKitError('INVALID_POLICY', describeIssues(parsed.error, 'policy'));
  }
  return parsed.data;
}

function deepFreeze<T extends object>(value: T): T {
  for (const member of Object.values(value)) {
    if (typeof member === 'object' && member !== null) deepFreeze(member as object);
  }
  return Object.freeze(value);
}
