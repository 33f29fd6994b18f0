import { z } from 'zod';
import { mustBe } from '../schemas/must-be.ts';
import { encryptWithKey } from '../crypto/aes.ts';
import { SiteKitError } from '../errors.ts';
import { DEFAULT_DRM_TYPE, DRM_TYPES, drmTypeSchema, type DrmType } from '../schemas/drm-type.ts';
import { describeIssues } from '../schemas/issues.ts';
import { tokenPolicySchema, type TokenPolicy } from '../schemas/policy.ts';
import { foldV2Aliases } from '../schemas/aliases-v2.ts';
import {
  playbackPolicyV2Conflicts,
  tokenPolicyV2Schema,
  type TokenPolicyV2,
  type TokenPolicyV2Input,
} from '../schemas/policy-v2.ts';
import { RESPONSE_FORMATS, type ResponseFormat } from '../schemas/token.ts';
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
  /**
   * The policy, and so the token's version: a v2 policy (`policy_version: 2`, the service's current
   * format) makes a v2 token; a v1 policy (the main spec's token data) or none makes a v1 token.
   */
  policy?: AnyTokenPolicy;
  /** v2 only; default "original". Outside the hash. */
  responseFormat?: ResponseFormat;
  /** v2 only; default false. Outside the hash. */
  keyRotation?: boolean;
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
  preparePolicy<P extends AnyTokenPolicy>(policy: P): PreparedPolicy<P>;
}

/** A v1 policy (token data) or a v2 policy: what `issue` takes. */
export type AnyTokenPolicy = TokenPolicy | TokenPolicyV2Input;

declare const prepared: unique symbol;
/** A policy checked and encrypted by `preparePolicy`; usable wherever its policy type is. */
export type PreparedPolicy<P extends AnyTokenPolicy = TokenPolicy> = P & {
  readonly [prepared]: true;
};

export const issueSchema = z.strictObject(
  {
    cid: z.string({ error: mustBe('a string') }).min(1, 'must not be empty'),
    userId: z
      .string({ error: mustBe('a string') })
      .min(1, 'must not be empty')
      .optional(),
    drmType: drmTypeSchema.optional(),
    policy: z.unknown().optional(),
    responseFormat: z
      .enum(RESPONSE_FORMATS, { error: mustBe('one of "original", "json", "custom"') })
      .optional(),
    keyRotation: z.boolean({ error: mustBe('true or false') }).optional(),
    // Checked by createTimestampText, which remembers the last valid one.
    timestamp: z
      .union([z.string(), z.date()], { error: mustBe('a yyyy-mm-ddThh:mm:ssZ string or a Date') })
      .optional(),
  },
  { error: mustBe('an object') },
);

const ISSUE_KEYS = new Set([
  'cid',
  'userId',
  'drmType',
  'policy',
  'timestamp',
  'responseFormat',
  'keyRotation',
]);
const DRM = new Set<unknown>(DRM_TYPES);
const FORMATS = new Set<unknown>(RESPONSE_FORMATS);
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
    (input.responseFormat === undefined || FORMATS.has(input.responseFormat)) &&
    (input.keyRotation === undefined || typeof input.keyRotation === 'boolean') &&
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

/** The encrypted policy field and whether it is a v2 policy. */
interface PolicyField {
  field: string;
  v2: boolean;
}

/** Creates an issuer whose keys are checked once, here; `issue` then only does per-token work. */
export function createTokenIssuer(options: SiteCredentials): TokenIssuer {
  const site = validateCredentials(options);
  const policyFields = new Map<string, PolicyField>();
  const preparedFields = new WeakMap<object, PolicyField>();
  const timestampText = createTimestampText();
  const siteIdJson = JSON.stringify(site.siteId);

  function policyField(policy: unknown): PolicyField {
    const preparedField =
      typeof policy === 'object' && policy !== null && preparedFields.get(policy);
    if (preparedField) return preparedField;
    // Keyed by the checked, canonical policy JSON: what is encrypted, so a hit is always right.
    const data = JSON.stringify(parsePolicy(policy));
    const cached = policyFields.get(data);
    if (cached !== undefined) return cached;
    const made = { field: encryptWithKey(data, site.aesKey), v2: data.startsWith(V2_PREFIX) };
    if (policyFields.size >= POLICY_CACHE_LIMIT) policyFields.clear();
    policyFields.set(data, made);
    return made;
  }

  return {
    issue(input) {
      const { cid, userId = NO_USER_ID, drmType = DEFAULT_DRM_TYPE, ...rest } = checkIssue(input);
      const { field, v2 } = policyField(rest.policy);
      if (!v2 && (rest.responseFormat !== undefined || rest.keyRotation !== undefined)) {
        throw new SiteKitError(
          'INVALID_INPUT',
          'responseFormat and keyRotation exist only in v2 tokens: give a v2 policy ({"policy_version":2,...}) or leave them out.',
        );
      }
      const timestamp = timestampText(rest.timestamp);
      const hashed = {
        drm_type: drmType,
        site_id: site.siteId,
        user_id: userId,
        cid,
        token: field,
        timestamp,
      };
      const hash = tokenHash(site.accessKey, hashed, v2 ? 'raw-digest' : site.hashEncoding);
      // The text JSON.stringify gives for these members in this order: drm_type, the policy field,
      // response_format, timestamp and hash are from closed alphabets (checked enum, base64, the
      // checked time format), so only the free-text members need escaping.
      const data = v2
        ? `"policy":"${field}","response_format":"${rest.responseFormat ?? 'original'}","key_rotation":${rest.keyRotation ?? false}`
        : `"token":"${field}"`;
      const json = `{"drm_type":"${drmType}","site_id":${siteIdJson},"user_id":${JSON.stringify(userId)},"cid":${JSON.stringify(cid)},${data},"timestamp":"${timestamp}","hash":"${hash}"}`;
      return Buffer.from(json, 'utf8').toString('base64');
    },
    preparePolicy<P extends AnyTokenPolicy>(policy: P) {
      const canonical = parsePolicy(policy);
      const data = JSON.stringify(canonical);
      const copy = deepFreeze(canonical) as unknown as PreparedPolicy<P>;
      preparedFields.set(copy, {
        field: encryptWithKey(data, site.aesKey),
        v2: data.startsWith(V2_PREFIX),
      });
      return copy;
    },
  };
}

const V2_PREFIX = '{"policy_version":2';

/** One-off form of `createTokenIssuer(options).issue(options)`. */
export function createLicenseToken(options: SiteCredentials & IssueOptions): string {
  const { siteId, siteKey, accessKey, hashEncoding, ...issue } = options;
  return createTokenIssuer({ siteId, siteKey, accessKey, hashEncoding }).issue(issue);
}

/**
 * Checks a policy with the builder's strict rules. A member named `policy_version` makes it a v2
 * policy (whose schema then demands the value 2); anything else is v1 token data.
 */
function parsePolicy(policy: unknown): TokenPolicy | TokenPolicyV2 {
  const v2 = typeof policy === 'object' && policy !== null && 'policy_version' in policy;
  if (v2) return parsePolicyV2(policy);
  const parsed = tokenPolicySchema.safeParse(policy ?? {});
  if (!parsed.success) {
    throw new SiteKitError('INVALID_POLICY', describeIssues(parsed.error, 'policy'));
  }
  return parsed.data;
}

function parsePolicyV2(policy: unknown): TokenPolicyV2 {
  const parsed = tokenPolicyV2Schema.safeParse(foldV2Aliases(policy).policy);
  if (!parsed.success) {
    throw new SiteKitError('INVALID_POLICY', describeIssues(parsed.error, 'policy'));
  }
  const conflicts = playbackPolicyV2Conflicts(parsed.data.playback_policy ?? {});
  if (conflicts.length > 0) {
    throw new SiteKitError(
      'INVALID_POLICY',
      conflicts.map((c) => `policy.playback_policy.${c.path}: ${c.message}`).join('; '),
    );
  }
  return parsed.data;
}

function deepFreeze<T extends object>(value: T): T {
  for (const member of Object.values(value)) {
    if (typeof member === 'object' && member !== null) deepFreeze(member as object);
  }
  return Object.freeze(value);
}
