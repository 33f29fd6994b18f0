import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createTokenIssuer, verifyLicenseToken } from '../../src/index.ts';
import { timestampArb } from '../support/arbitraries.ts';
import { policyV2Arb } from '../support/arbitraries-v2.ts';
import { TUTO } from '../support/site.ts';
import { codeOf } from '../support/failure.ts';

const issuer = createTokenIssuer(TUTO);
const keys = { siteKey: TUTO.siteKey, accessKey: TUTO.accessKey };
const textArb = fc.string({ minLength: 1, maxLength: 40, unit: 'grapheme' });
const drmArb = fc.constantFrom('NCG', 'Widevine', 'PlayReady', 'FairPlay' as const);

const json = (token: string) =>
  JSON.parse(Buffer.from(token, 'base64').toString('utf8')) as Record<string, unknown>;
const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64');

describe('v2 issue and verify', () => {
  it('round-trip any valid v2 policy, user, content, DRM type and response format', () => {
    fc.assert(
      fc.property(
        policyV2Arb,
        textArb,
        textArb,
        drmArb,
        timestampArb,
        fc.constantFrom('original', 'json', 'custom' as const),
        fc.boolean(),
        (policy, userId, cid, drmType, ts, responseFormat, keyRotation) => {
          const token = issuer.issue({
            cid,
            userId,
            drmType,
            policy,
            timestamp: ts,
            responseFormat,
            keyRotation,
          });
          const result = verifyLicenseToken(token, { ...keys, now: Date.parse(ts) });
          expect(result.version).toBe(2);
          expect(result.policy).toEqual(policy);
          expect(result).toMatchObject({
            cid,
            userId,
            drmType,
            timestamp: ts,
            responseFormat,
            keyRotation,
          });
          const both =
            policy.playback_policy?.license_duration !== undefined &&
            policy.playback_policy.expire_date !== undefined;
          expect(result.warnings).toHaveLength(both ? 1 : 0);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('any change to a hashed member of a v2 token is refused before its policy is read', () => {
    const members = [
      'drm_type',
      'site_id',
      'user_id',
      'cid',
      'policy',
      'timestamp',
      'hash',
    ] as const;
    fc.assert(
      fc.property(policyV2Arb, fc.constantFrom(...members), fc.nat(), (policy, member, seed) => {
        const ts = '2026-03-01T12:00:00Z';
        const token = issuer.issue({ cid: 'movie', drmType: 'Widevine', policy, timestamp: ts });
        const fields = json(token);
        const changed: Record<string, unknown> = {
          ...fields,
          [member]: tamper(member, String(fields[member]), seed),
        };
        const code = codeOf(() =>
          verifyLicenseToken(b64(changed), { ...keys, now: Date.parse(ts) }),
        );
        expect(['HASH_MISMATCH', 'INVALID_FIELD']).toContain(code);
      }),
      { numRuns: 300 },
    );
  });

  it('response_format and key_rotation are outside the hash: a change in transit still verifies', () => {
    const ts = '2026-03-01T12:00:00Z';
    const token = issuer.issue({ cid: 'movie', policy: { policy_version: 2 }, timestamp: ts });
    const changed = b64({ ...json(token), response_format: 'json', key_rotation: true });
    const result = verifyLicenseToken(changed, { ...keys, now: Date.parse(ts) });
    expect(result).toMatchObject({ version: 2, responseFormat: 'json', keyRotation: true });
  });
});

function tamper(member: string, value: string, seed: number): string {
  if (member === 'drm_type') return value === 'NCG' ? 'FairPlay' : 'NCG';
  if (member === 'timestamp') return '2026-03-01T12:00:01Z';
  if (member === 'policy' || member === 'hash') {
    // Another valid base64 string of the same length: flip one character inside the alphabet.
    const at = seed % (value.replace(/=+$/, '').length - 1);
    const c = value[at] === 'A' ? 'B' : 'A';
    return value.slice(0, at) + c + value.slice(at + 1);
  }
  return `${value}x`;
}
