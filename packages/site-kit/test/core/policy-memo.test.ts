import { describe, expect, it } from 'vitest';
import { createTokenIssuer } from '../../src/index.ts';
import { PolicyMemo, type PolicyField } from '../../src/token/policy-memo.ts';
import { TUTO } from '../support/site.ts';

const policyOf = (duration: number) => ({ playback_policy: { limit: true, duration } });
const fieldOf = (duration: number): PolicyField => ({ field: `field-${duration}`, v2: false });

/** What the issuer does with the memo: look up, and on a miss make the field and remember it. */
function issueWith(memo: PolicyMemo, policy: object, duration: number): 'remembered' | 'made' {
  if (memo.lookup(policy) !== undefined) return 'remembered';
  memo.remember(policy, memo.source, policyOf(duration), fieldOf(duration));
  return 'made';
}

describe('PolicyMemo after a run of policies that all differ', () => {
  it('still knows a new object with the last content, within eight tokens, and at once after that', () => {
    const memo = new PolicyMemo();
    for (let d = 1; d <= 50; d++) expect(issueWith(memo, policyOf(d), d)).toBe('made');
    // New objects with the content of the last one: compared again at least every eighth.
    const outcomes = Array.from({ length: 8 }, () => issueWith(memo, policyOf(50), 50));
    expect(outcomes).toContain('remembered');
    // Found again: every new object of that content is known at once.
    for (let i = 0; i < 20; i++) expect(memo.lookup(policyOf(50))).toEqual(fieldOf(50));
  });

  it('never gives the field of other content, compared or not', () => {
    const memo = new PolicyMemo();
    for (let d = 1; d <= 100; d++) {
      const found = memo.lookup(policyOf(d));
      expect(found).toBeUndefined();
      memo.remember(policyOf(d), memo.source, policyOf(d), fieldOf(d));
    }
  });

  it('keeps issued tokens equal to those of a fresh issuer, whatever the memo skipped', () => {
    const memoized = createTokenIssuer(TUTO);
    const call = (duration: number) => ({
      cid: 'movie',
      timestamp: '2026-03-01T12:00:00Z',
      policy: policyOf(duration),
    });
    const durations = [...Array.from({ length: 40 }, (_, i) => i + 1), 40, 40, 40, 7, 40, 40];
    for (const d of durations) {
      expect(memoized.issue(call(d))).toBe(createTokenIssuer(TUTO).issue(call(d)));
    }
  });
});
