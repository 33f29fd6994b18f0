import { describe, expect, it } from 'vitest';
import * as node from '../../src/index.ts';
import * as web from '../../src/web/index.ts';
import { textsEqual } from '../../src/token/hash-input.ts';

// The token hash is compared in constant time (textsEqual on Web Crypto): a hash that differs only
// in its last character, or is a prefix or an extension of the right one, must not compare equal.

const site = {
  siteId: 'MUTANTS',
  siteKey: 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa',
  accessKey: 'access',
};
const NOW = Date.parse('2026-01-01T00:00:00Z');
const timestamp = '2026-01-01T00:00:00Z';

function withHash(token: string, change: (hash: string) => string): string {
  const json = JSON.parse(Buffer.from(token, 'base64').toString('utf8')) as { hash: string };
  return Buffer.from(JSON.stringify({ ...json, hash: change(json.hash) })).toString('base64');
}

// Base64 text that differs from `hash` only in its last significant character.
const lastCharChanged = (hash: string) => {
  const at = hash.replace(/=+$/, '').length - 1;
  return `${hash.slice(0, at)}${hash[at] === 'A' ? 'B' : 'A'}${hash.slice(at + 1)}`;
};

describe('textsEqual', () => {
  it('is true only for the same text', () => {
    expect(textsEqual('abcd', 'abcd')).toBe(true);
    expect(textsEqual('abcd', 'abce')).toBe(false);
    expect(textsEqual('abcd', 'abc')).toBe(false);
    expect(textsEqual('abc', 'abcd')).toBe(false);
    expect(textsEqual('abcd', '')).toBe(false);
  });
});

describe.each([
  ['on node:crypto', node],
  ['on Web Crypto', web],
] as const)('the async verifier %s', (_name, api) => {
  const issuer = api.createTokenIssuerAsync(site);
  const verifier = api.createTokenVerifierAsync({ ...site });

  async function codeOf(token: string): Promise<string> {
    try {
      await verifier.verify(token, { now: NOW });
      return 'none';
    } catch (error) {
      if (error instanceof node.TokenError) return error.code;
      throw error;
    }
  }

  it.each([
    ['its last character changed', lastCharChanged],
    ['cut by its last four characters', (hash: string) => hash.slice(0, -4)],
    [
      'three bytes longer',
      (hash: string) =>
        Buffer.concat([Buffer.from(hash, 'base64'), Buffer.alloc(3)]).toString('base64'),
    ],
  ])('refuses a v1 and a v2 token whose hash is %s', async (_what, change) => {
    for (const policy of [{}, { policy_version: 2 }] as node.AnyTokenPolicy[]) {
      const token = await issuer.issue({ cid: 'movie', userId: 'u', policy, timestamp });
      expect(await codeOf(token)).toBe('none');
      expect(await codeOf(withHash(token, change))).toBe('HASH_MISMATCH');
    }
  });
});
