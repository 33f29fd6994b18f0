import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatDataParameter, readDataParameter } from '../../src/http/form-body.ts';

// What isBase64 stands for, written independently of it (its own fast paths are under test too).
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

// The reading before the shortcut for the license service's own body: every body must still give
// what it gave.
function reference(body: string): string | undefined {
  const text = body.trim();
  if (text.length === 0) return undefined;
  const raw = text.replaceAll(' ', '+');
  if (BASE64.test(raw)) return raw;
  const data = new URLSearchParams(text).get('data');
  if (data === null || data.length === 0) return undefined;
  return data.trim().replaceAll(' ', '+');
}

const base64 = fc.uint8Array({ maxLength: 64 }).map((b) => Buffer.from(b).toString('base64'));
// Pieces of what a body may hold: base64 characters, raw and escaped + / =, in either case, other
// escapes, separators and spaces.
const piece = fc.oneof(
  fc.constantFrom('A', 'z', '0', '+', '/', '=', '%2B', '%2b', '%2F', '%2f', '%3D', '%3d'),
  fc.constantFrom('%20', '%41', '%', '%2', '&', '&data=x', ' ', 'data=', '\u00e9', '%C3%A9'),
);
const body = fc.oneof(
  base64.map(formatDataParameter),
  base64,
  base64.map((b) => `data=${b}`),
  fc.array(piece, { maxLength: 30 }).map((p) => `data=${p.join('')}`),
  fc.array(piece, { maxLength: 30 }).map((p) => p.join('')),
  fc
    .tuple(
      fc.constantFrom('', ' ', '\n'),
      base64.map(formatDataParameter),
      fc.constantFrom('', ' ', '\r\n'),
    )
    .map((p) => p.join('')),
);

describe('the data parameter', () => {
  it('is read as form decoding reads it, whatever the body', () => {
    fc.assert(
      fc.property(body, (b) => {
        expect(readDataParameter(b)).toBe(reference(b));
      }),
      { numRuns: 3000 },
    );
  });

  it('gives back the base64 the license service encoded', () => {
    fc.assert(
      fc.property(base64, (b) => {
        expect(readDataParameter(formatDataParameter(b))).toBe(b.length === 0 ? undefined : b);
      }),
    );
  });

  it('keeps the edges form decoding trims or splits', () => {
    for (const b of [
      'data=+AB+',
      'data=AB+',
      'data=AB&data=CD',
      'data=%2Babc%2f%3d',
      'data=',
      'data=%41B',
    ]) {
      expect(readDataParameter(b)).toBe(reference(b));
    }
    expect(readDataParameter('data=+AB+')).toBe('AB');
    expect(readDataParameter('data=%2Babc%2f%3d')).toBe('+abc/=');
  });
});

// Long bodies take the native path (a search per `%` and a native base64 test) that short ones do not;
// it must give what form decoding gives on the service's bodies and on every near miss.
const longBase64 = fc
  .uint8Array({ minLength: 200, maxLength: 1200 })
  .map((b) => Buffer.from(b).toString('base64'));
const nearMiss = fc.constantFrom(
  '%2B',
  '%2b',
  '%2F',
  '%2f',
  '%3D',
  '%3d', // escapes it reads, in either case
  '%2',
  '%3',
  '%',
  '%2G',
  '%3B',
  '%41',
  '%20',
  '%2%2B', // truncated or other escapes
  '+',
  ' ',
  '=',
  '==',
  '-',
  '_',
  '&',
  '&data=AAAA',
  'data=',
  '\u00e9',
  '%C3%A9',
  'A',
  'AAAA',
);
const longBody = fc.oneof(
  longBase64.map(formatDataParameter),
  longBase64.map((b) => `data=${b}`),
  // A piece put in, or in place of a character, anywhere (the ends included).
  fc
    .tuple(longBase64.map(formatDataParameter), fc.nat(), nearMiss, fc.boolean())
    .map(([b, at, piece, replace]) => {
      const i = at % (b.length + 1);
      return b.slice(0, i) + piece + b.slice(replace ? i + 1 : i);
    }),
  // Cut anywhere: inside an escape, before or after the padding.
  fc
    .tuple(longBase64.map(formatDataParameter), fc.nat())
    .map(([b, at]) => b.slice(0, at % b.length)),
  // Lower-case escapes, or raw `+` `/` `=` for some of them (form decoding makes a raw `+` a space).
  fc
    .tuple(longBase64.map(formatDataParameter), fc.constantFrom('%2B', '%2F', '%3D'), fc.boolean())
    .map(([b, escape, raw]) =>
      b.replaceAll(escape, raw ? decodeURIComponent(escape) : escape.toLowerCase()),
    ),
  // Base64 whose padding bits are not zero: isBase64's, not what Buffer writes.
  longBase64
    .filter((b) => b.endsWith('=='))
    .map((b) => formatDataParameter(`${b.slice(0, -3)}R==`)),
  fc
    .tuple(
      fc.constantFrom('', ' ', '\n'),
      longBase64.map(formatDataParameter),
      fc.constantFrom('', ' ', '\r\n'),
    )
    .map((p) => p.join('')),
);

describe('the data parameter of a long body', () => {
  it('is read as form decoding reads it, near misses included', () => {
    fc.assert(
      fc.property(longBody, (b) => {
        expect(readDataParameter(b)).toBe(reference(b));
      }),
      { numRuns: 3000 },
    );
  });

  it('gives back the base64 the license service encoded', () => {
    fc.assert(
      fc.property(longBase64, (b) => {
        expect(readDataParameter(formatDataParameter(b))).toBe(b);
      }),
    );
  });

  it('reads the near misses at the edges as form decoding does', () => {
    const b = formatDataParameter(Buffer.alloc(600, 0xfb).toString('base64')); // +7v+ repeated
    for (const body of [
      `${b}%2`,
      `${b}%`,
      `${b.slice(0, -1)}`,
      `${b.slice(0, -2)}`,
      `data=+${b.slice(5)}`,
      `${b}+`,
      `data=${b.slice(5).replaceAll('%2B', '+')}`,
      `data=${b.slice(5).replaceAll('%2B', '%2b')}`,
      `${b}&data=AAAA`,
    ]) {
      expect(readDataParameter(body)).toBe(reference(body));
    }
    expect(readDataParameter(`data=${b.slice(5).replaceAll('%2B', '%2b')}`)).toBe(
      Buffer.alloc(600, 0xfb).toString('base64'),
    );
  });
});
