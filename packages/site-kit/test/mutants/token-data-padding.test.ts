import { createCipheriv, createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import * as node from '../../src/index.ts';
import * as web from '../../src/web/index.ts';

// Token data whose plaintext parses as JSON but does not unpad was not made with PKCS#7 by this
// key's owner: the verifier must say DECRYPT_FAILED, not read the JSON. The token is built here by
// hand (node:crypto AES without padding, an independent sha256) so the padding is what the test says.

const site = {
  siteId: 'MUTANTS',
  siteKey: 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa',
  accessKey: 'access',
};
const timestamp = '2026-01-01T00:00:00Z';
const now = Date.parse(timestamp);

function tokenWithData(plain: Buffer): string {
  const cipher = createCipheriv('aes-256-cbc', Buffer.from(site.siteKey), '0123456789abcdef');
  cipher.setAutoPadding(false);
  const data = Buffer.concat([cipher.update(plain), cipher.final()]).toString('base64');
  const fields = {
    drm_type: 'PlayReady',
    site_id: site.siteId,
    user_id: 'u',
    cid: 'movie',
    token: data,
    timestamp,
  };
  const input = `${site.accessKey}PlayReady${site.siteId}umovie${data}${timestamp}`;
  const hex = createHash('sha256').update(input, 'utf8').digest('hex').toUpperCase();
  const hash = Buffer.from(hex, 'latin1').toString('base64');
  return Buffer.from(JSON.stringify({ ...fields, hash })).toString('base64');
}

const padded = Buffer.concat([Buffer.from('{}'), Buffer.alloc(14, 14)]);
// The same two characters followed by 14 spaces: JSON.parse reads it, but 0x20 is no padding.
const unpadded = Buffer.concat([Buffer.from('{}'), Buffer.alloc(14, 0x20)]);

async function codeOf(verify: () => unknown): Promise<string> {
  try {
    await verify();
    return 'none';
  } catch (error) {
    if (error instanceof node.TokenError) return error.code;
    throw error;
  }
}

describe('token data that parses but does not unpad', () => {
  it('verifies the same token built with its padding (the construction is right)', async () => {
    const token = tokenWithData(padded);
    expect(await codeOf(() => node.verifyLicenseToken(token, { ...site, now }))).toBe('none');
  });

  it.each([
    ['verifyLicenseToken', (t: string) => node.verifyLicenseToken(t, { ...site, now })],
    ['async, node:crypto', (t: string) => node.createTokenVerifierAsync(site).verify(t, { now })],
    ['async, Web Crypto', (t: string) => web.createTokenVerifierAsync(site).verify(t, { now })],
  ])('is DECRYPT_FAILED (%s)', async (_name, verify) => {
    expect(await codeOf(() => verify(tokenWithData(unpadded)))).toBe('DECRYPT_FAILED');
  });
});
