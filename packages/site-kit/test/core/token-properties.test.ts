import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createTokenIssuer, SiteKitError, verifyLicenseToken } from '../../src/index.ts';
import { brokenPolicyArb, policyArb, timestampArb } from '../support/arbitraries.ts';
import { TUTO } from '../support/site.ts';
import { codeOf } from '../support/failure.ts';

const site = TUTO;
const keys = { siteKey: site.siteKey, accessKey: site.accessKey };
const issuer = createTokenIssuer(site);
const textArb = fc.string({ minLength: 1, maxLength: 40, unit: 'grapheme' });
const drmArb = fc.constantFrom('NCG', 'Widevine', 'PlayReady', 'FairPlay' as const);

function reencode(token: string, change: (json: Record<string, unknown>) => void): string {
  const json = JSON.parse(Buffer.from(token, 'base64').toString('utf8')) as Record<string, unknown>;
  change(json);
  return Buffer.from(JSON.stringify(json)).toString('base64');
}

describe('issue and verify', () => {
  it('round-trip any valid policy, user, content and DRM type', () => {
    fc.assert(
      fc.property(
        policyArb,
        textArb,
        textArb,
        drmArb,
        timestampArb,
        (policy, userId, cid, drmType, ts) => {
          const token = issuer.issue({ cid, userId, drmType, policy, timestamp: ts });
          const result = verifyLicenseToken(token, { ...keys, now: Date.parse(ts) });
          expect(result.policy).toEqual(policy);
          expect(result).toMatchObject({ cid, userId, drmType, timestamp: ts, warnings: [] });
        },
      ),
      { numRuns: 200 },
    );
  });

  it('reject a token when any single field is changed', () => {
    const fields = ['drm_type', 'site_id', 'user_id', 'cid', 'token', 'timestamp', 'hash'] as const;
    fc.assert(
      fc.property(policyArb, fc.constantFrom(...fields), fc.nat(), (policy, field, seed) => {
        const ts = '2026-05-05T10:00:00Z';
        const token = issuer.issue({
          cid: 'movie',
          userId: 'user',
          drmType: 'Widevine',
          policy,
          timestamp: ts,
        });
        const tampered = reencode(token, (json) => {
          json[field] = changed(field, json[field] as string, seed);
        });
        expect(codeOf(() => verifyLicenseToken(tampered, { ...keys, now: Date.parse(ts) }))).toBe(
          'HASH_MISMATCH',
        );
      }),
      { numRuns: 300 },
    );
  });

  it('reject any policy that breaks a rule, naming the field path', () => {
    fc.assert(
      fc.property(brokenPolicyArb, ({ policy, path }) => {
        try {
          issuer.issue({ cid: 'movie', policy: policy as never });
        } catch (error) {
          expect(error).toBeInstanceOf(SiteKitError);
          expect((error as SiteKitError).code).toBe('INVALID_POLICY');
          expect((error as Error).message).toContain(path);
          return;
        }
        throw new Error(`accepted ${JSON.stringify(policy)}`);
      }),
      { numRuns: 400 },
    );
  });
});

// A different but still well-formed value for each field, so only the hash can catch the change.
function changed(field: string, value: string, seed: number): string {
  switch (field) {
    case 'drm_type':
      return ['NCG', 'PlayReady', 'FairPlay'][seed % 3] as string;
    case 'timestamp':
      return `2026-05-05T10:00:0${1 + (seed % 9)}Z`;
    case 'token':
    case 'hash': {
      const chars = value.replace(/=+$/, '').split('');
      const at = seed % chars.length;
      const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
      chars[at] = alphabet[
        (alphabet.indexOf(chars[at] as string) + 1 + (seed % 63)) % 64
      ] as string;
      const body = chars.join('');
      return body + '='.repeat((4 - (body.length % 4)) % 4);
    }
    default:
      return `${value}${String.fromCharCode(97 + (seed % 26))}`;
  }
}
