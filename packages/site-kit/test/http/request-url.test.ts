import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { requestUrl } from '../../src/http/node-exchange.ts';

// The web Request's URL of a node message. A target that starts with "/" is a path on the Host
// (RFC 9112's origin-form: "//x" and "/\\x" are paths, not another authority); any other target is
// resolved against the Host. Only the Host's origin is kept and credentials are dropped (a Request
// refuses a URL with them); a Host that does not parse is localhost. Whatever the Host and target,
// the URL is one a Request takes, or undefined when the target names no URL at all.
const reference = (host: string, target: string): string | undefined => {
  const base = `http://${host}`;
  const origin = URL.canParse(base) ? new URL(base).origin : 'http://localhost';
  if (target.startsWith('/')) return new URL(origin + target).href;
  if (!URL.canParse(target, origin)) return undefined;
  const url = new URL(target, origin);
  url.username = '';
  url.password = '';
  return url.href;
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

  it('names the URL of the path on the Host, or of the target resolved against it', () => {
    fc.assert(
      fc.property(host, target, (h, t) => {
        const ours = requestUrl(h, t);
        const expected = reference(h, t);
        if (expected === undefined) expect(ours).toBeUndefined();
        else expect(new Request(ours as string | URL).url).toBe(expected);
      }),
      { numRuns: 5000 },
    );
  });

  it('joins what clients send into one string; "//" and "/\\" stay paths on the Host', () => {
    expect(requestUrl('site.example:8080', '/drm/license?cid=a')).toBe(
      'http://site.example:8080/drm/license?cid=a',
    );
    expect(requestUrl('site.example', '//elsewhere.example/x')).toBe(
      'http://site.example//elsewhere.example/x',
    );
    expect(new Request(requestUrl('site.example', '/\\') as string).url).toBe(
      'http://site.example//',
    );
    expect(requestUrl('user:secret@a/b', '/x')).toBe('http://a/x');
    expect(String(requestUrl('site.example', 'http://u:p@other.example/x'))).toBe(
      'http://other.example/x',
    );
    expect(requestUrl('site.example', 'http://[')).toBeUndefined();
  });
});
