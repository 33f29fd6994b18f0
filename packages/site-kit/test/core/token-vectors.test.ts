import { describe, expect, it } from 'vitest';
import {
  createLicenseToken,
  createTokenIssuer,
  decodeLicenseToken,
  verifyLicenseToken,
  type HashEncoding,
} from '../../src/index.ts';
import { vectors } from '../../../../test/support/vectors.ts';

const readings: { encoding: HashEncoding; token: 'token' | 'token_raw_digest' }[] = [
  { encoding: 'hex-text', token: 'token' },
  { encoding: 'raw-digest', token: 'token_raw_digest' },
];

describe('token vectors', () => {
  for (const v of vectors.token) {
    const site = { siteId: v.site_id, siteKey: v.site_key, accessKey: v.access_key };
    const issue = {
      cid: v.cid,
      userId: v.user_id,
      drmType: v.drm_type,
      policy: JSON.parse(v.token_data) as object,
      timestamp: v.timestamp,
    };

    for (const { encoding, token } of readings) {
      it(`"${v.name}" with ${encoding} is reproduced byte for byte`, () => {
        expect(createLicenseToken({ ...site, hashEncoding: encoding, ...issue })).toBe(
          v.expected[token],
        );
      });

      it(`"${v.name}" with ${encoding} verifies and decrypts to the vector's token data`, () => {
        const result = verifyLicenseToken(v.expected[token], {
          siteKey: v.site_key,
          accessKey: v.access_key,
          siteId: v.site_id,
          hashEncoding: encoding,
          now: Date.parse(v.timestamp) + 30_000,
        });
        expect(JSON.stringify(result.policy)).toBe(v.token_data);
        expect(result).toMatchObject({
          drmType: v.drm_type,
          siteId: v.site_id,
          userId: v.user_id,
          cid: v.cid,
          timestamp: v.timestamp,
          warnings: [],
        });
        expect(result.version).toBe(1);
        expect(result.expiresAt.getTime() - result.issuedAt.getTime()).toBe(600_000);
      });
    }

    it(`"${v.name}" has the vector's token field and hash inside`, () => {
      const fields = decodeLicenseToken(v.expected.token);
      expect(fields).toMatchObject({ token: v.expected.token_field });
      expect(fields.hash).toBe(v.expected.hash);
      expect(Buffer.from(fields.hash, 'base64').toString('latin1')).toBe(
        v.expected.hash_string_sha256_hex_upper,
      );
      expect(decodeLicenseToken(v.expected.token_raw_digest).hash).toBe(v.expected.hash_raw_digest);
    });

    it(`"${v.name}" comes out the same from a reused issuer (cached token field)`, () => {
      const issuer = createTokenIssuer(site);
      const first = issuer.issue(issue);
      expect(issuer.issue({ ...issue, policy: JSON.parse(v.token_data) as object })).toBe(first);
      expect(first).toBe(v.expected.token);
    });
  }
});
