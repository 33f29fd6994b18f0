import { describe, expect, it } from 'vitest';
import {
  createTokenIssuer,
  encrypt,
  readLicenseToken,
  TokenError,
  verifyLicenseToken,
} from '../../src/index.ts';
import { tokenHash, type HashedFields } from '../../src/token/hash.ts';
import { failure } from '../support/failure.ts';
import { TUTO } from '../support/site.ts';

const keys = { siteKey: TUTO.siteKey, accessKey: TUTO.accessKey };
const TS = '2026-03-01T12:00:00Z';
const AT = Date.parse(TS);
const issuer = createTokenIssuer(TUTO);
const v2 = issuer.issue({ cid: 'movie', policy: { policy_version: 2 }, timestamp: TS });
const v1 = issuer.issue({ cid: 'movie', timestamp: TS });
const json = (token: string) =>
  JSON.parse(Buffer.from(token, 'base64').toString('utf8')) as Record<string, unknown>;
const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64');

describe('telling v1 from v2', () => {
  it('a token with policy is v2, with token is v1, and each verifies as its version', () => {
    expect(readLicenseToken(v2).version).toBe(2);
    expect(readLicenseToken(v1).version).toBe(1);
    expect(verifyLicenseToken(v2, { ...keys, now: AT }).version).toBe(2);
    expect(verifyLicenseToken(v1, { ...keys, now: AT }).version).toBe(1);
  });

  it('a token with both token and policy is refused, naming both', () => {
    const both = b64({ ...json(v2), token: json(v1)['token'] });
    const error = failure(() => readLicenseToken(both));
    expect(error.code).toBe('INVALID_FIELD');
    expect(error.message).toMatch(/both "token" \(v1\) and "policy" \(v2\)/);
  });

  it('a token with neither is refused, saying what each version carries', () => {
    const { policy: _p, ...neither } = json(v2);
    const error = failure(() => readLicenseToken(b64(neither)));
    expect(error.code).toBe('INVALID_FIELD');
    expect(error.message).toMatch(/a v1 token carries "token", a v2 token "policy"/);
  });

  it('INVALID_FIELD names the failing member, so a bad drm_type can be told apart', () => {
    const error = failure(() => readLicenseToken(b64({ ...json(v2), drm_type: 'Marlin' })));
    expect(error).toBeInstanceOf(TokenError);
    expect((error as TokenError).field).toBe('drm_type');
    expect(error.message).toMatch(
      /drm_type: must be one of "NCG", "Widevine", "PlayReady", "FairPlay", "Wiseplay" \(any case\), got "Marlin"/,
    );
    const format = failure(() => readLicenseToken(b64({ ...json(v2), response_format: 'xml' })));
    expect((format as TokenError).field).toBe('response_format');
    expect(format.message).toMatch(/response_format: must be one of "original", "json", "custom"/);
    const rotation = failure(() => readLicenseToken(b64({ ...json(v2), key_rotation: 'no' })));
    expect((rotation as TokenError).field).toBe('key_rotation');
  });

  it("a v2 token hashed with v1's hex-text reading is refused and the message says so", () => {
    const fields = json(v2);
    const hashed = { ...(fields as unknown as HashedFields), token: fields['policy'] as string };
    const hash = tokenHash(TUTO.accessKey, hashed, 'hex-text');
    const error = failure(() => verifyLicenseToken(b64({ ...fields, hash }), { ...keys, now: AT }));
    expect(error.code).toBe('HASH_MISMATCH');
    expect(error.message).toMatch(/v2 tokens hash the raw 32-byte digest/);
  });

  it('a v2 token is checked for its hash before its policy is decrypted', () => {
    // A policy that does not decrypt, under a wrong hash: the answer must be the hash, not the padding.
    const broken = b64({ ...json(v2), policy: encrypt('x', 'k'.repeat(32)) });
    expect(failure(() => verifyLicenseToken(broken, { ...keys, now: AT })).code).toBe(
      'HASH_MISMATCH',
    );
  });

  it('a v2 token whose policy is v1 token data is refused with the rule', () => {
    const field = encrypt('{"playback_policy":{"limit":true}}', TUTO.siteKey);
    const fields = { ...json(v2), policy: field };
    const hashed = { ...(fields as unknown as HashedFields), token: field };
    const hash = tokenHash(TUTO.accessKey, hashed, 'raw-digest');
    const error = failure(() => verifyLicenseToken(b64({ ...fields, hash }), { ...keys, now: AT }));
    expect(error.code).toBe('INVALID_POLICY');
    expect(error.message).toMatch(
      /policy.policy_version: is required: a v2 policy starts with "policy_version": 2/,
    );
  });

  it('a v2 token without drm_type is hashed as PlayReady and says so', () => {
    const { drm_type: _d, ...fields } = json(
      issuer.issue({
        cid: 'movie',
        drmType: 'PlayReady',
        policy: { policy_version: 2 },
        timestamp: TS,
      }),
    );
    const result = verifyLicenseToken(b64(fields), { ...keys, now: AT });
    expect(result.drmType).toBe('PlayReady');
    expect(result.warnings).toContain('drm_type is absent: "PlayReady" was assumed');
  });
});
