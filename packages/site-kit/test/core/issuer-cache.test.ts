import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  createTokenIssuer,
  SiteKitError,
  verifyLicenseToken,
  type TokenPolicy,
} from '../../src/index.ts';
import { checkIssue, issueSchema } from '../../src/token/issue-rules.ts';
import { createTimestampText } from '../../src/token/timestamp-memo.ts';
import { TUTO } from '../support/site.ts';

const site = TUTO;
const TS = '2026-03-01T12:00:00Z';

describe('issuer caches', () => {
  it('a prepared policy gives the same token as the plain policy, and is frozen', () => {
    const issuer = createTokenIssuer(site);
    const policy: TokenPolicy = { playback_policy: { limit: true, duration: 60 } };
    const prepared = issuer.preparePolicy(policy);
    expect(issuer.issue({ cid: 'm', policy: prepared, timestamp: TS })).toBe(
      issuer.issue({ cid: 'm', policy, timestamp: TS }),
    );
    expect(Object.isFrozen(prepared)).toBe(true);
    expect(Object.isFrozen(prepared.playback_policy)).toBe(true);
  });

  it('preparePolicy rejects a policy that breaks a rule', () => {
    const issuer = createTokenIssuer(site);
    expect(() => issuer.preparePolicy({ playback_policy: { duration: 5 } })).toThrow(SiteKitError);
  });

  it('a policy object changed between calls gives a token with the new policy', () => {
    const issuer = createTokenIssuer(site);
    const policy = { playback_policy: { limit: true, duration: 60 } };
    issuer.issue({ cid: 'm', policy, timestamp: TS });
    policy.playback_policy.duration = 7200;
    const token = issuer.issue({ cid: 'm', policy, timestamp: TS });
    const verified = verifyLicenseToken(token, { ...site, now: Date.parse(TS) });
    expect(verified.version === 1 && verified.policy.playback_policy?.duration).toBe(7200);
  });

  it('a cached valid policy does not let a broken one through', () => {
    const issuer = createTokenIssuer(site);
    issuer.issue({ cid: 'm', policy: { playback_policy: { limit: true } }, timestamp: TS });
    expect(() =>
      issuer.issue({ cid: 'm', policy: { playback_policy: { limit: 'yes' } } as never }),
    ).toThrow(/policy\.playback_policy\.limit: must be true or false/);
  });
});

describe('timestamp memo', () => {
  it('rejects a bad timestamp even right after a good one', () => {
    const text = createTimestampText();
    expect(text(TS)).toBe(TS);
    expect(() => text('2026-03-01T12:00:60Z')).toThrow(/timestamp: must be a real UTC date/);
    expect(text(TS)).toBe(TS);
  });

  it('formats now and Dates in whole seconds, following the clock', () => {
    let now = Date.parse(TS) + 999;
    const text = createTimestampText(() => now);
    expect(text()).toBe(TS);
    now += 1;
    expect(text()).toBe('2026-03-01T12:00:01Z');
    expect(text(new Date('2027-01-01T00:00:00.500Z'))).toBe('2027-01-01T00:00:00Z');
    expect(text()).toBe('2026-03-01T12:00:01Z');
  });
});

describe('the fast check of issue options', () => {
  it('accepts exactly what the zod schema accepts', () => {
    const value = fc.oneof(
      fc.constant(undefined),
      fc.constantFrom('', 'movie', 'Widevine', 'widevine', 'PlayReady', '2026-03-01T12:00:00Z'),
      fc.string(),
      fc.integer(),
      fc.constant(null),
      fc.date(),
      fc.constant({}),
    );
    const input = fc.dictionary(
      fc.constantFrom('cid', 'userId', 'drmType', 'timestamp', 'policy', 'extra'),
      value,
    );
    fc.assert(
      fc.property(input, (options) => {
        const zodAccepts = issueSchema.safeParse(options).success;
        let accepted = true;
        try {
          checkIssue(options as never);
        } catch {
          accepted = false;
        }
        expect(accepted).toBe(zodAccepts);
      }),
      { numRuns: 2000 },
    );
  });
});
