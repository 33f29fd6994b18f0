import type { KeyObject } from 'node:crypto';
import { encryptBytesWithKey, encryptWithKey } from '../crypto/aes.ts';
import { toAesKey } from '../crypto/aes-key.ts';
import { tokenHash } from './hash.ts';
import {
  canonicalPolicy,
  checkVersionOptions,
  hashedFields,
  issueCall,
  tokenJson,
  type AnyTokenPolicy,
  type IssueOptions,
  type PreparedPolicy,
} from './issue-rules.ts';
import { deepFreeze } from './freeze.ts';
import { PolicyMemo, type PolicyField } from './policy-memo.ts';
import { clearPolicyBytes, tokenPolicyBytes } from './policy-v1-text.ts';
import { createTimestampText } from './timestamp-memo.ts';
import { validateCredentials, type SiteCredentials } from './keys.ts';

export {
  NO_USER_ID,
  type AnyTokenPolicy,
  type IssueOptions,
  type PreparedPolicy,
} from './issue-rules.ts';

/**
 * Issues license tokens for one site; made by {@link createTokenIssuer}, which checks the
 * credentials once.
 */
export interface TokenIssuer {
  /** Builds a token: base64 of the token JSON, ready to hand to the player. */
  issue(options: IssueOptions): string;
  /**
   * Checks and encrypts a policy once, for policies used again and again (a rental, a subscription):
   * `issue({ policy: prepared })` then skips serializing it. The returned copy is frozen. Issuing with
   * the same plain object again is nearly as fast without it.
   */
  preparePolicy<P extends AnyTokenPolicy>(policy: P): PreparedPolicy<P>;
}

/** Creates an issuer whose keys are checked once, here; `issue` then only does per-token work. */
export function createTokenIssuer(options: SiteCredentials): TokenIssuer {
  const site = validateCredentials<KeyObject>(options, toAesKey);
  const memo = new PolicyMemo();
  const timestampText = createTimestampText();
  const siteIdJson = JSON.stringify(site.siteId);
  // The token's UTF-8 bytes, written in place: allocating a Buffer per token costs more than base64.
  let bytes = Buffer.alloc(0);

  function policyField(policy: unknown): PolicyField {
    const found = memo.lookup(policy);
    if (found !== undefined) return found;
    const source = memo.source;
    // The common v1 policy: its bytes, written by the walk, are encrypted without a text between.
    const fast = tokenPolicyBytes(source);
    if (fast !== undefined) {
      let field: PolicyField;
      try {
        field = { field: encryptBytesWithKey(fast.bytes, fast.length, site.aesKey), v2: false };
      } finally {
        clearPolicyBytes();
      }
      memo.remember(policy, source, fast.parsed, field);
      return field;
    }
    const canonical = canonicalPolicy(source);
    const field = { field: encryptWithKey(canonical.data, site.aesKey), v2: canonical.v2 };
    memo.remember(policy, source, canonical.parsed, field);
    return field;
  }

  return {
    issue(input) {
      const call = issueCall(input);
      const { field, v2 } = policyField(call.policy);
      checkVersionOptions(call, v2);
      const timestamp = timestampText(call.timestamp);
      const hashed = hashedFields(site.siteId, call, field, timestamp);
      const hash = tokenHash(site.accessKey, hashed, v2 ? 'raw-digest' : site.hashEncoding);
      const json = tokenJson(siteIdJson, call, field, v2, timestamp, hash);
      // A UTF-16 unit is at most 3 UTF-8 bytes.
      if (bytes.length < json.length * 3) bytes = Buffer.alloc(json.length * 3);
      return bytes.toString('base64', 0, bytes.write(json, 0, 'utf8'));
    },
    preparePolicy<P extends AnyTokenPolicy>(policy: P) {
      const canonical = canonicalPolicy(policy);
      const copy = deepFreeze(canonical.parsed) as unknown as PreparedPolicy<P>;
      memo.prepare(copy, { field: encryptWithKey(canonical.data, site.aesKey), v2: canonical.v2 });
      return copy;
    },
  };
}

/** One-off form of `createTokenIssuer(options).issue(options)`. */
export function createLicenseToken(options: SiteCredentials & IssueOptions): string {
  const { siteId, siteKey, accessKey, hashEncoding, ...issue } = options;
  return createTokenIssuer({ siteId, siteKey, accessKey, hashEncoding }).issue(issue);
}
