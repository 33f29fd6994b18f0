import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isBase64 } from '../../src/encoding/base64.ts';
import { formatDataParameter, readDataParameter } from '../../src/http/form-body.ts';

// The reading before the shortcut for the license service's own body: every body must still give
// what it gave.
function reference(body: string): string | undefined {
  const text = body.trim();
  if (text.length === 0) return undefined;
  const raw = text.replaceAll(' ', '+');
  if (isBase64(raw)) return raw;
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
