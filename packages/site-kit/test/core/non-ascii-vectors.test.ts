// Tokens whose user_id (and cid) are not ASCII, computed by an independent Python implementation
// (test/fixtures/vectors/non-ascii-user-id.py). S must be hashed as UTF-8: a Latin-1 reading gives
// other bytes for every character above U+007F, and the vectors tell it apart.
import { hash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createTokenIssuer, verifyLicenseToken } from '../../src/index.ts';
import { tokenHash } from '../../src/token/hash.ts';

interface Vector {
  name: string;
  version: 1 | 2;
  drm_type: 'Widevine' | 'PlayReady' | 'FairPlay';
  user_id: string;
  cid: string;
  policy_plaintext: string;
  data: string;
  hash_hex_text: string;
  hash_raw_digest: string;
  hash_if_s_were_latin1: string | null;
  token: string;
}
const file = join(
  import.meta.dirname,
  '../../../../test/fixtures/vectors/non-ascii-user-id-vectors.json',
);
const { common, vectors } = JSON.parse(readFileSync(file, 'utf8')) as {
  common: { site_id: string; site_key: string; access_key: string; timestamp: string };
  vectors: Vector[];
};
const site = { siteId: common.site_id, siteKey: common.site_key, accessKey: common.access_key };
const issuer = createTokenIssuer(site);

describe('non-ASCII user_id vectors (independent Python implementation)', () => {
  it.each(vectors)('$name: the issuer writes the vector byte for byte', (v) => {
    const token = issuer.issue({
      cid: v.cid,
      userId: v.user_id,
      drmType: v.drm_type,
      policy: JSON.parse(v.policy_plaintext) as object,
      timestamp: common.timestamp,
      ...(v.version === 2 ? { responseFormat: 'original', keyRotation: false } : {}),
    });
    expect(token).toBe(v.token);
  });

  it.each(vectors)('$name: the verifier accepts it', (v) => {
    const verified = verifyLicenseToken(v.token, {
      siteKey: site.siteKey,
      accessKey: site.accessKey,
      now: Date.parse(common.timestamp),
    });
    expect([verified.userId, verified.cid, verified.version]).toEqual([
      v.user_id,
      v.cid,
      v.version,
    ]);
  });

  it.each(vectors)('$name: both hash readings match the vector, over S as UTF-8', (v) => {
    const fields = {
      drm_type: v.drm_type,
      site_id: common.site_id,
      user_id: v.user_id,
      cid: v.cid,
      token: v.data,
      timestamp: common.timestamp,
    };
    expect(tokenHash(common.access_key, fields, 'hex-text')).toBe(v.hash_hex_text);
    expect(tokenHash(common.access_key, fields, 'raw-digest')).toBe(v.hash_raw_digest);
  });

  it('the Latin-1 mutant is told apart: hashing S as Latin-1 gives another hash', () => {
    const latin = vectors.filter((v) => v.hash_if_s_were_latin1 !== null);
    expect(latin.length).toBeGreaterThan(0);
    for (const v of latin) {
      const s =
        common.access_key +
        v.drm_type +
        common.site_id +
        v.user_id +
        v.cid +
        v.data +
        common.timestamp;
      // The mutant reproduced here, to show the vector would catch it.
      expect(hash('sha256', Buffer.from(s, 'latin1'), 'base64')).toBe(v.hash_if_s_were_latin1);
      expect(v.hash_if_s_were_latin1).not.toBe(v.hash_raw_digest);
    }
  });
});
