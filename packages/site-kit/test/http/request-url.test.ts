import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { requestUrl } from '../../src/http/node-exchange.ts';

// The web Request's URL of a node message: a plain Host and path are joined into one string for
// Request to parse once; it must name the URL that resolving the target against the Host did.
// (A Request refuses some URLs, credentials for one: the joined string must be refused alike.)
const reference = (host: string, target: string) => {
  const base = `http://${host}`;
  return new Request(new URL(target, URL.canParse(base) ? base : 'http://localhost')).url;
};

describe('requestUrl', () => {
  const host = fc.oneof(
    fc.constantFrom(
      'localhost',
      'site.example',
      'site.example:8080',
      'SITE.Example:80',
      '127.0.0.1:3000',
      '1.2.3.999',
      '[::1]:8443',
      '[::1',
      'a/b',
      'a?b',
      'a#b',
      'user@host',
      'a\\b',
      '',
      ' x',
      'host:99999',
      '0x7f.1',
    ),
    fc.string({ maxLength: 12 }),
  );
  const piece = fc.constantFrom(
    '/',
    '//',
    '\\',
    '.',
    '..',
    '?',
    '#',
    '%2f',
    ' ',
    'é',
    'x',
    '*',
    'http:',
    '@',
  );
  const target = fc.oneof(
    fc.array(piece, { maxLength: 8 }).map((p) => p.join('')),
    fc.array(piece, { maxLength: 8 }).map((p) => `/${p.join('')}`),
    fc.string({ maxLength: 16 }),
  );

  it('names the URL that resolving the target against the Host names', () => {
    fc.assert(
      fc.property(host, target, (h, t) => {
        let expected: string | undefined;
        try {
          expected = reference(h, t);
        } catch {
          // A target that does not resolve, or a URL Request refuses, must fail below too.
        }
        const ours = () => new Request(requestUrl(h, t)).url;
        if (expected === undefined) expect(ours).toThrow();
        else expect(ours()).toBe(expected);
      }),
      { numRuns: 5000 },
    );
  });

  it('joins what clients send into one string, and resolves anything else as a URL', () => {
    expect(requestUrl('site.example:8080', '/drm/license?cid=a')).toBe(
      'http://site.example:8080/drm/license?cid=a',
    );
    expect(requestUrl('site.example', '//elsewhere.example/x')).toBeInstanceOf(URL);
    expect(requestUrl('a/b', '/x')).toBeInstanceOf(URL);
  });
});
