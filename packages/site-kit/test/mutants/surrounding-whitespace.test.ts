import { describe, expect, it } from 'vitest';
import * as node from '../../src/index.ts';
import * as web from '../../src/web/index.ts';

// A token or custom data read from a header, a file or a form often has a newline or spaces
// around it: it is still the same value, and the readers take it as such.

const site = {
  siteId: 'MUTANTS',
  siteKey: 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa',
  accessKey: 'access',
};
const timestamp = '2026-01-01T00:00:00Z';
const now = Date.parse(timestamp);
const around = (value: string) => [`${value}\n`, ` ${value}`, `\t${value}\r\n`];

describe('a token with whitespace around it', () => {
  const token = node.createTokenIssuer(site).issue({ cid: 'movie', userId: 'u', timestamp });

  it.each(around(token))('decodes and verifies (%j)', async (sent) => {
    expect(node.decodeLicenseToken(sent)).toEqual(node.decodeLicenseToken(token));
    expect(node.verifyLicenseToken(sent, { ...site, now }).cid).toBe('movie');
    expect((await web.createTokenVerifierAsync(site).verify(sent, { now })).userId).toBe('u');
  });
});
