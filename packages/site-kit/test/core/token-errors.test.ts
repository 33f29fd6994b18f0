import { describe, expect, it } from 'vitest';
import {
  createLicenseToken,
  createTokenIssuer,
  encrypt,
  TokenError,
  verifyLicenseToken,
  type TokenErrorCode,
} from '../../src/index.ts';
import { tokenHash } from '../../src/token/hash.ts';
import { failure } from '../support/failure.ts';
import { TUTO } from '../support/site.ts';

const site = TUTO;
const keys = { siteKey: site.siteKey, accessKey: site.accessKey };
const TS = '2026-03-01T12:00:00Z';
const AT = Date.parse(TS);

function expectTokenError(fn: () => unknown, code: TokenErrorCode, message: RegExp): void {
  const error = failure(fn);
  expect(error).toBeInstanceOf(TokenError);
  expect(error.code).toBe(code);
  expect(error.message).toMatch(message);
  expect(error.message).not.toContain(site.siteKey);
  expect(error.message).not.toContain(site.accessKey);
}

/** A token with the given fields and a correct hash, to reach the checks after the hash. */
function signed(fields: Record<string, string>): string {
  const all = {
    drm_type: 'Widevine',
    site_id: 'TUTO',
    user_id: 'u',
    cid: 'c',
    timestamp: TS,
    ...fields,
  };
  const hash = tokenHash(site.accessKey, all as never, 'hex-text');
  return Buffer.from(JSON.stringify({ ...all, hash })).toString('base64');
}

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64');
const good = createLicenseToken({ ...site, cid: 'movie', timestamp: TS });

describe('verifyLicenseToken errors', () => {
  it('MALFORMED_TOKEN: not base64, not JSON, not an object', () => {
    expectTokenError(
      () => verifyLicenseToken('%%%', { ...keys, now: AT }),
      'MALFORMED_TOKEN',
      /not standard base64/,
    );
    expectTokenError(
      () => verifyLicenseToken('', { ...keys, now: AT }),
      'MALFORMED_TOKEN',
      /empty/,
    );
    expectTokenError(
      () => verifyLicenseToken(Buffer.from('hello').toString('base64'), { ...keys, now: AT }),
      'MALFORMED_TOKEN',
      /not JSON/,
    );
    expectTokenError(
      () => verifyLicenseToken(b64([1, 2]), { ...keys, now: AT }),
      'MALFORMED_TOKEN',
      /not an object/,
    );
  });

  it('INVALID_FIELD names the field and the rule', () => {
    const json = JSON.parse(Buffer.from(good, 'base64').toString()) as Record<string, unknown>;
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ ...json, cid: undefined }, /cid: is required/],
      [
        { ...json, drm_type: 'Marlin' },
        /drm_type: must be one of "NCG", "Widevine", "PlayReady", "FairPlay", "Wiseplay" \(any case\)/,
      ],
      [
        { ...json, timestamp: '2026-03-01 12:00:00' },
        /timestamp: must have the format yyyy-mm-ddThh:mm:ssZ/,
      ],
      [{ ...json, timestamp: '2026-02-30T12:00:00Z' }, /timestamp: must be a real UTC date/],
      [{ ...json, hash: 'not base64' }, /hash: must be standard padded base64/],
      [{ ...json, extra: 1 }, /unknown member "extra"/],
      [{ ...json, user_id: 7 }, /user_id: must be a string/],
    ];
    for (const [fields, message] of cases) {
      expectTokenError(
        () => verifyLicenseToken(b64(fields), { ...keys, now: AT }),
        'INVALID_FIELD',
        message,
      );
    }
  });

  it('SITE_MISMATCH names both sites', () => {
    expectTokenError(
      () => verifyLicenseToken(good, { ...keys, siteId: 'OTHER', now: AT }),
      'SITE_MISMATCH',
      /for site "TUTO".*keys of site "OTHER"/,
    );
  });

  it('HASH_MISMATCH with a wrong access key says neither reading matches', () => {
    expectTokenError(
      () => verifyLicenseToken(good, { ...keys, accessKey: 'x'.repeat(32), now: AT }),
      'HASH_MISMATCH',
      /matches neither hash reading .*check that the site's access key/,
    );
  });

  it('HASH_MISMATCH says when the other hash reading would have matched', () => {
    const raw = createLicenseToken({
      ...site,
      cid: 'movie',
      timestamp: TS,
      hashEncoding: 'raw-digest',
    });
    expectTokenError(
      () => verifyLicenseToken(raw, { ...keys, now: AT }),
      'HASH_MISMATCH',
      /made with hashEncoding 'raw-digest', but 'hex-text' was expected/,
    );
    expectTokenError(
      () => verifyLicenseToken(good, { ...keys, hashEncoding: 'raw-digest', now: AT }),
      'HASH_MISMATCH',
      /made with hashEncoding 'hex-text', but 'raw-digest' was expected/,
    );
  });

  it('TOKEN_EXPIRED after the default 600 s window, and says by how many seconds', () => {
    expect(verifyLicenseToken(good, { ...keys, now: AT + 600_000 }).cid).toBe('movie');
    expectTokenError(
      () => verifyLicenseToken(good, { ...keys, now: AT + 600_001 }),
      'TOKEN_EXPIRED',
      /expired 1 s ago: it is valid for 600 s after its timestamp 2026-03-01T12:00:00Z/,
    );
  });

  it("TOKEN_EXPIRED with the main spec's 60 s window when asked for", () => {
    const v60 = { ...keys, validitySeconds: 60 };
    expect(verifyLicenseToken(good, { ...v60, now: AT + 60_000 }).cid).toBe('movie');
    expectTokenError(
      () => verifyLicenseToken(good, { ...v60, now: AT + 185_000 }),
      'TOKEN_EXPIRED',
      /expired 125 s ago: it is valid for 60 s/,
    );
    expect(verifyLicenseToken(good, { ...keys, validitySeconds: 300, now: AT + 185_000 }).cid).toBe(
      'movie',
    );
  });

  it('TOKEN_NOT_YET_VALID unless within the allowed clock skew', () => {
    expectTokenError(
      () => verifyLicenseToken(good, { ...keys, now: AT - 6_000 }),
      'TOKEN_NOT_YET_VALID',
      /6 s in the future .*allowed clock skew 5 s/,
    );
    // The default tolerance is small but not zero (the wire addendum): 5 s.
    expect(verifyLicenseToken(good, { ...keys, now: AT - 5_000 }).cid).toBe('movie');
    expectTokenError(
      () => verifyLicenseToken(good, { ...keys, clockSkewSeconds: 0, now: AT - 1_000 }),
      'TOKEN_NOT_YET_VALID',
      /1 s in the future .*allowed clock skew 0 s/,
    );
  });

  it('DECRYPT_FAILED when the site key is not the one the token was made with', () => {
    expectTokenError(
      () => verifyLicenseToken(good, { ...keys, siteKey: 'b'.repeat(32), now: AT }),
      'DECRYPT_FAILED',
      /site key is not the one the token was made with/,
    );
  });

  it('INVALID_POLICY names the field path inside the token data', () => {
    const token = signed({ token: encrypt('{"playback_policy":{"duration":-1}}', site.siteKey) });
    expectTokenError(
      () => verifyLicenseToken(token, { ...keys, now: AT }),
      'INVALID_POLICY',
      /policy\.playback_policy\.duration: must not be negative/,
    );
  });

  it('reports the "applied only when" rules as warnings, as the license service applies them', () => {
    const token = signed({
      token: encrypt(
        '{"playback_policy":{"duration":60,"expire_date":"2026-04-01T00:00:00Z"}}',
        site.siteKey,
      ),
    });
    const result = verifyLicenseToken(token, { ...keys, now: AT });
    expect(result.warnings).toEqual([
      'playback_policy.duration is applied only when limit is true; set "limit": true or remove duration',
      'playback_policy.expire_date is applied only when limit is true; set "limit": true or remove expire_date',
      'playback_policy.expire_date must not be used together with duration (duration wins); keep only one',
    ]);
  });

  it('never decrypts a token whose hash does not match (no padding oracle)', () => {
    // A forged token field with a bad hash must fail on the hash, whatever the ciphertext holds.
    const json = JSON.parse(Buffer.from(good, 'base64').toString()) as Record<string, unknown>;
    json.token = Buffer.alloc(32, 7).toString('base64');
    expectTokenError(
      () => verifyLicenseToken(b64(json), { ...keys, now: AT }),
      'HASH_MISMATCH',
      /hash/,
    );
  });

  it('rejects bad verifier options clearly', () => {
    expect(
      failure(() => verifyLicenseToken(good, { ...keys, validitySeconds: -1 })).message,
    ).toMatch(/validitySeconds: must be a non-negative number/);
    expect(failure(() => verifyLicenseToken(good, { ...keys, siteKey: 'short' })).code).toBe(
      'INVALID_SITE_KEY',
    );
    expect(failure(() => verifyLicenseToken(good, { ...keys, accessKey: '' })).code).toBe(
      'INVALID_ACCESS_KEY',
    );
  });
});

describe('token issuer', () => {
  it('checks the keys once, when it is created', () => {
    expect(failure(() => createTokenIssuer({ ...site, siteKey: 'x' })).code).toBe(
      'INVALID_SITE_KEY',
    );
    expect(failure(() => createTokenIssuer({ ...site, accessKey: '' })).code).toBe(
      'INVALID_ACCESS_KEY',
    );
    expect(failure(() => createTokenIssuer({ ...site, siteId: '' })).message).toMatch(
      /siteId: must be a non-empty string/,
    );
    expect(
      failure(() => createTokenIssuer({ ...site, hashEncoding: 'hex' as never })).message,
    ).toMatch(/hashEncoding: must be "hex-text" or "raw-digest", got the string "hex"/);
  });

  it('rejects bad issue options with the field and the rule', () => {
    const issuer = createTokenIssuer(site);
    const cases: [unknown, RegExp][] = [
      [{}, /cid: is required/],
      [{ cid: '' }, /cid: must not be empty/],
      [{ cid: 'c', drmType: 'Clearkey' }, /drmType: must be one of/],
      [{ cid: 'c', timestamp: '2026-13-01T00:00:00Z' }, /timestamp: must be a real UTC date/],
      [{ cid: 'c', userId: 5 }, /userId: must be a string/],
      [{ cid: 'c', user: 'x' }, /unknown member "user"/],
    ];
    for (const [input, message] of cases) {
      const error = failure(() => issuer.issue(input as never));
      expect(error.code).toBe('INVALID_INPUT');
      expect(error.message).toMatch(message);
    }
  });

  it('defaults: drm_type PlayReady, user_id LICENSETOKEN, timestamp now in whole seconds', () => {
    const before = Math.floor(Date.now() / 1000) * 1000;
    const token = createLicenseToken({ ...site, cid: 'movie' });
    const json = JSON.parse(Buffer.from(token, 'base64').toString()) as Record<string, string>;
    expect(Object.keys(json)).toEqual([
      'drm_type',
      'site_id',
      'user_id',
      'cid',
      'token',
      'timestamp',
      'hash',
    ]);
    expect(json).toMatchObject({ drm_type: 'PlayReady', user_id: 'LICENSETOKEN', site_id: 'TUTO' });
    expect(json.timestamp).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
    expect(Date.parse(json.timestamp as string)).toBeGreaterThanOrEqual(before);
    expect(Date.parse(json.timestamp as string)).toBeLessThanOrEqual(Date.now());
  });

  it('writes a Date timestamp in the spec format', () => {
    const token = createLicenseToken({
      ...site,
      cid: 'm',
      timestamp: new Date('2026-03-01T12:00:00.987Z'),
    });
    expect(verifyLicenseToken(token, { ...keys, now: AT }).timestamp).toBe(TS);
  });

  it('serializes the policy in the order of the spec tables, whatever the input order', () => {
    const token = createLicenseToken({
      ...site,
      cid: 'm',
      timestamp: TS,
      policy: {
        external_key: { mpeg_cenc: { iv: 'aa'.repeat(16), key_id: 'bb'.repeat(16) } },
        playback_policy: { duration: 5, limit: true },
      },
    });
    const policy = verifyLicenseToken(token, { ...keys, now: AT }).policy;
    expect(JSON.stringify(policy)).toBe(
      `{"playback_policy":{"limit":true,"duration":5},"external_key":{"mpeg_cenc":{"key_id":"${'bb'.repeat(16)}","iv":"${'aa'.repeat(16)}"}}}`,
    );
  });

  it('encrypts an absent policy as the empty token data {}', () => {
    const token = createLicenseToken({ ...site, cid: 'm', timestamp: TS });
    expect(verifyLicenseToken(token, { ...keys, now: AT }).policy).toEqual({});
  });
});
