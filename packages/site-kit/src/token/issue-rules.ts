import * as z from 'zod/mini';
import { mustBe } from '../schemas/must-be.ts';
import { SiteKitError } from '../errors.ts';
import { DEFAULT_DRM_TYPE, DRM_TYPES, drmTypeSchema, type DrmType } from '../schemas/drm-type.ts';
import { describeIssues } from '../schemas/issues.ts';
import { english } from '../schemas/english.ts';
import { tokenPolicySchema, type TokenPolicy } from '../schemas/policy.ts';
import { foldV2Aliases } from '../schemas/aliases-v2.ts';
import { upperCaseHexPaths } from '../schemas/hex-case.ts';
import {
  hlsAesWithoutKeyId,
  playbackPolicyV2Conflicts,
  tokenPolicyV2Schema,
  type TokenPolicyV2,
  type TokenPolicyV2Input,
} from '../schemas/policy-v2.ts';
import { RESPONSE_FORMATS, type ResponseFormat } from '../schemas/response-format.ts';
import type { HashedFields } from './hash-input.ts';
import { tokenPolicyText } from './policy-v1-text.ts';

// What issuing a token is, whichever crypto runs it: the options' rules, the policy's canonical
// text, and the token JSON around the encrypted policy and the hash.

/** The spec's user ID for tokens that carry no user. */
export const NO_USER_ID = 'LICENSETOKEN';

/**
 * What one token says: the content, user, DRM and policy; the site's keys come from {@link
 * SiteCredentials}.
 */
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

/** A v1 policy (token data) or a v2 policy: what `issue` takes. */
export type AnyTokenPolicy = TokenPolicy | TokenPolicyV2Input;

declare const prepared: unique symbol;
/** A policy checked and encrypted by `preparePolicy`; usable wherever its policy type is. */
export type PreparedPolicy<P extends AnyTokenPolicy = TokenPolicy> = P & {
  readonly [prepared]: true;
};

export const issueSchema = z.strictObject(
  {
    cid: z.string({ error: mustBe('a string') }).check(z.minLength(1, 'must not be empty')),
    userId: z.optional(
      z.string({ error: mustBe('a string') }).check(z.minLength(1, 'must not be empty')),
    ),
    drmType: z.optional(drmTypeSchema),
    policy: z.optional(z.unknown()),
    responseFormat: z.optional(
      z.enum(RESPONSE_FORMATS, { error: mustBe('one of "original", "json", "custom"') }),
    ),
    keyRotation: z.optional(z.boolean({ error: mustBe('true or false') })),
    // Checked by createTimestampText, which remembers the last valid one.
    timestamp: z.optional(
      z.union([z.string({ error: english }), z.date({ error: english })], {
        error: mustBe('a yyyy-mm-ddThh:mm:ssZ string or a Date'),
      }),
    ),
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

/** The checked options of one token, defaults filled in. */
export interface IssueCall {
  cid: string;
  userId: string;
  drmType: DrmType;
  policy: unknown;
  responseFormat: ResponseFormat | undefined;
  keyRotation: boolean | undefined;
  timestamp: string | Date | undefined;
}

export function issueCall(input: IssueOptions): IssueCall {
  const checked = checkIssue(input);
  return {
    cid: checked.cid,
    userId: checked.userId ?? NO_USER_ID,
    drmType: checked.drmType ?? DEFAULT_DRM_TYPE,
    policy: checked.policy,
    responseFormat: checked.responseFormat,
    keyRotation: checked.keyRotation,
    timestamp: checked.timestamp,
  };
}

/** responseFormat and keyRotation exist in v2 tokens only. */
export function checkVersionOptions(call: IssueCall, v2: boolean): void {
  if (!v2 && (call.responseFormat !== undefined || call.keyRotation !== undefined)) {
    throw new SiteKitError(
      'INVALID_INPUT',
      'responseFormat and keyRotation exist only in v2 tokens: give a v2 policy ({"policy_version":2,...}) or leave them out.',
    );
  }
}

/** The fields the hash covers, the encrypted policy standing where v1 has its token data. */
export function hashedFields(
  siteId: string,
  call: IssueCall,
  field: string,
  timestamp: string,
): HashedFields {
  return {
    drm_type: call.drmType,
    site_id: siteId,
    user_id: call.userId,
    cid: call.cid,
    token: field,
    timestamp,
  };
}

/**
 * The token JSON: the text JSON.stringify gives for these members in this order. drm_type, the
 * policy field, response_format, timestamp and hash are from closed alphabets (checked enum, base64,
 * the checked time format), so only the free-text members need escaping; `siteIdJson` is the site ID
 * already as JSON text.
 */
export function tokenJson(
  siteIdJson: string,
  call: IssueCall,
  field: string,
  v2: boolean,
  timestamp: string,
  hash: string,
): string {
  const data = v2
    ? `"policy":"${field}","response_format":"${call.responseFormat ?? 'original'}","key_rotation":${call.keyRotation ?? false}`
    : `"token":"${field}"`;
  return `{"drm_type":"${call.drmType}","site_id":${siteIdJson},"user_id":${jsonString(call.userId)},"cid":${jsonString(call.cid)},${data},"timestamp":"${timestamp}","hash":"${hash}"}`;
}

// Text JSON.stringify leaves as it is: no quote, backslash, control character or lone surrogate.
const PLAIN_TEXT = /^[^"\\\u0000-\u001f\ud800-\udfff]*$/;

// The last two texts written (a token's user ID and content ID), so that a site issuing for the same
// user or content again skips the scan.
let lastValue = '';
let lastJson = '""';
let otherValue = '';
let otherJson = '""';

/** JSON.stringify of a string, without calling it for the common text that needs no escape. */
export function jsonString(value: string): string {
  if (value === lastValue) return lastJson;
  if (value === otherValue) return otherJson;
  const json = PLAIN_TEXT.test(value) ? `"${value}"` : JSON.stringify(value);
  otherValue = lastValue;
  otherJson = lastJson;
  lastValue = value;
  lastJson = json;
  return json;
}

/** A policy's canonical text (what is encrypted), its version, and the parsed policy itself. */
export interface CanonicalPolicy {
  data: string;
  v2: boolean;
  parsed: TokenPolicy | TokenPolicyV2;
}

const V2_PREFIX = '{"policy_version":2';

export function canonicalPolicy(policy: unknown): CanonicalPolicy {
  // The common v1 policy is checked and written in one walk; anything else goes to the schemas.
  const fast = tokenPolicyText(policy);
  if (fast !== undefined) return { data: fast.json, v2: false, parsed: fast.parsed };
  const parsed = parsePolicy(policy);
  const data = JSON.stringify(parsed);
  return { data, v2: data.startsWith(V2_PREFIX), parsed };
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
  refuseUpperCaseHex(parsed.data.external_key);
  return parsed.data;
}

/** Writers write lower-case hex: the service's builders refuse upper case (their error 1040). */
function refuseUpperCaseHex(externalKey: unknown): void {
  const upper = upperCaseHexPaths(externalKey, 'policy.external_key');
  if (upper.length === 0) return;
  throw new SiteKitError(
    'INVALID_POLICY',
    upper
      .map(
        (path) =>
          `${path}: must be lower-case hex (the service's token builders refuse upper case)`,
      )
      .join('; '),
  );
}

function parsePolicyV2(policy: unknown): TokenPolicyV2 {
  const parsed = tokenPolicyV2Schema.safeParse(foldV2Aliases(policy).policy);
  if (!parsed.success) {
    throw new SiteKitError('INVALID_POLICY', describeIssues(parsed.error, 'policy'));
  }
  refuseUpperCaseHex(parsed.data.external_key);
  const noKeyId = hlsAesWithoutKeyId(parsed.data.external_key);
  if (noKeyId.length > 0) {
    throw new SiteKitError(
      'INVALID_POLICY',
      noKeyId
        .map(
          (path) =>
            `${path}: is required (the service's newest token builders refuse an hls_aes key without it)`,
        )
        .join('; '),
    );
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
