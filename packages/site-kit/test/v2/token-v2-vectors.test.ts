import { describe, expect, it } from 'vitest';
import {
  createTokenIssuer,
  decodeLicenseToken,
  readLicenseToken,
  verifyLicenseToken,
  type TokenPolicyV2Input,
} from '../../src/index.ts';
import { vectorsV2 } from '../../../../test/support/vectors-v2.ts';

const { common } = vectorsV2;
const site = { siteId: common.site_id, siteKey: common.site_key, accessKey: common.access_key };
const keys = { siteKey: common.site_key, accessKey: common.access_key, siteId: common.site_id };
const during = Date.parse(common.timestamp) + 30_000;
const issuer = createTokenIssuer(site);

describe('v2 reference vectors', () => {
  for (const v of vectorsV2.vectors) {
    const issue = {
      cid: v.cid,
      userId: v.user_id,
      drmType: v.drm_type,
      policy: JSON.parse(v.policy_plaintext) as TokenPolicyV2Input,
      timestamp: common.timestamp,
    };

    it(`"${v.name}" is reproduced byte for byte by the issuer`, () => {
      const token = issuer.issue(issue);
      expect(Buffer.from(token, 'base64').toString('utf8')).toBe(v.token_json);
      expect(token).toBe(v.token);
    });

    it(`"${v.name}" is reproduced by a one-off issuer whatever hashEncoding it was given`, () => {
      // v2 always hashes the raw digest; the v1 setting must not leak into v2 tokens.
      const hexText = createTokenIssuer({ ...site, hashEncoding: 'hex-text' });
      expect(hexText.issue(issue)).toBe(v.token);
    });

    it(`"${v.name}" verifies as v2 and decrypts to the vector's policy text`, () => {
      const result = verifyLicenseToken(v.token, { ...keys, now: during });
      expect(result.version).toBe(2);
      if (result.version !== 2) return;
      expect(JSON.stringify(result.policy)).toBe(v.policy_plaintext);
      expect(result).toMatchObject({
        drmType: v.drm_type,
        siteId: common.site_id,
        userId: v.user_id,
        cid: v.cid,
        timestamp: common.timestamp,
        responseFormat: 'original',
        keyRotation: false,
        warnings: [],
      });
      expect(result.expiresAt.getTime() - result.issuedAt.getTime()).toBe(600_000);
    });

    it(`"${v.name}" decodes to its policy field and 44-character raw-digest hash`, () => {
      const read = readLicenseToken(v.token);
      expect(read.version).toBe(2);
      expect(read.fields).toEqual(JSON.parse(v.token_json));
      expect(decodeLicenseToken(v.token)).toMatchObject({ policy: v.policy, hash: v.hash });
      expect(v.hash).toHaveLength(44);
    });

    for (const layout of v.other_layouts ?? []) {
      it(`"${v.name}" in another builder's layout (${layout.layout}) verifies`, () => {
        const result = verifyLicenseToken(layout.token, { ...keys, now: during });
        expect(result.version).toBe(2);
        expect(result.policy).toEqual(JSON.parse(layout.policy_plaintext));
        expect(result).toMatchObject({ responseFormat: 'original', keyRotation: false });
        expect(result.warnings).toEqual([]);
        expect(readLicenseToken(layout.token).fields).toEqual(JSON.parse(layout.token_json));
      });
    }
  }

  it('the reference layout of a re-issued spaced policy is the compact one', () => {
    const v = vectorsV2.vectors[0]!;
    const spaced = v.other_layouts!.find((l) => l.layout.startsWith('spaced'))!;
    const token = issuer.issue({
      cid: v.cid,
      userId: v.user_id,
      drmType: v.drm_type,
      policy: JSON.parse(spaced.policy_plaintext) as TokenPolicyV2Input,
      timestamp: common.timestamp,
    });
    expect(token).toBe(v.token);
  });
});
