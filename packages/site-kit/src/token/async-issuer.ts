import type { AsyncCrypto } from '../crypto/async-crypto.ts';
import { textToBase64 } from '../encoding/base64.ts';
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
import { validateCredentials, type SiteCredentials } from './keys.ts';
import { PolicyMemo, type PolicyField } from './policy-memo.ts';
import { createTimestampText } from './timestamp-memo.ts';

/** The async twin of `TokenIssuer`: the same tokens, byte for byte, from any runtime's crypto. */
export interface AsyncTokenIssuer {
  /** {@link TokenIssuer.issue}, resolving to the base64 token. */
  issue(options: IssueOptions): Promise<string>;
  /** {@link TokenIssuer.preparePolicy}, resolving to the frozen, prepared copy. */
  preparePolicy<P extends AnyTokenPolicy>(policy: P): Promise<PreparedPolicy<P>>;
}

/** `createTokenIssuer` on the given crypto; the options are checked here, synchronously. */
export function createAsyncTokenIssuer<K>(
  crypto: AsyncCrypto<K>,
  options: SiteCredentials,
): AsyncTokenIssuer {
  const site = validateCredentials(options, crypto.key);
  const memo = new PolicyMemo();
  const timestampText = createTimestampText();
  const siteIdJson = JSON.stringify(site.siteId);

  async function policyField(policy: unknown): Promise<PolicyField> {
    const found = memo.lookup(policy);
    if (found !== undefined) return found;
    const source = memo.source;
    const canonical = canonicalPolicy(source);
    const field = { field: await crypto.encrypt(canonical.data, site.aesKey), v2: canonical.v2 };
    memo.remember(policy, source, canonical.parsed, field);
    return field;
  }

  return {
    async issue(input) {
      const call = issueCall(input);
      const { field, v2 } = await policyField(call.policy);
      checkVersionOptions(call, v2);
      const timestamp = timestampText(call.timestamp);
      const hashed = hashedFields(site.siteId, call, field, timestamp);
      const hash = await crypto.tokenHash(
        site.accessKey,
        hashed,
        v2 ? 'raw-digest' : site.hashEncoding,
      );
      return textToBase64(tokenJson(siteIdJson, call, field, v2, timestamp, hash));
    },
    async preparePolicy<P extends AnyTokenPolicy>(policy: P) {
      const canonical = canonicalPolicy(policy);
      const field = await crypto.encrypt(canonical.data, site.aesKey);
      const copy = deepFreeze(canonical.parsed) as unknown as PreparedPolicy<P>;
      memo.prepare(copy, { field, v2: canonical.v2 });
      return copy;
    },
  };
}

/** `createLicenseToken` on the given crypto. */
export async function createLicenseTokenWith<K>(
  crypto: AsyncCrypto<K>,
  options: SiteCredentials & IssueOptions,
): Promise<string> {
  const { siteId, siteKey, accessKey, hashEncoding, ...issue } = options;
  return createAsyncTokenIssuer(crypto, { siteId, siteKey, accessKey, hashEncoding }).issue(issue);
}
