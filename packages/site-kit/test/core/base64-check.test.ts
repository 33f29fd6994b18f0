import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isBase64 } from '../../src/encoding/base64.ts';

// isBase64 reads character codes for speed; the rule it stands for is this regex: canonical,
// padded standard base64 and nothing else.
const RULE = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

const chars = fc.constantFrom(
  ...'AZaz09+/=-_ \n.'.split(''),
  'é',
  '\u0100',
  '\u012b', // low byte '+'
  '\u0141', // low byte 'A'
  '\ud83d',
);
const texts = fc.oneof(
  fc.string({ unit: chars, maxLength: 14 }),
  fc.uint8Array({ maxLength: 20 }).map((b) => Buffer.from(b).toString('base64')),
  fc.tuple(fc.uint8Array({ minLength: 1, maxLength: 20 }), fc.nat(40), chars).map(([b, at, c]) => {
    const text = Buffer.from(b).toString('base64');
    const i = at % text.length;
    return text.slice(0, i) + c + text.slice(i + 1);
  }),
);

describe('isBase64', () => {
  it('accepts exactly what the canonical base64 rule accepts', () => {
    fc.assert(
      fc.property(texts, (text) => {
        expect(isBase64(text)).toBe(RULE.test(text));
      }),
      { numRuns: 5000 },
    );
  });

  it('takes padding only at the end, at most two', () => {
    for (const text of ['', 'YQ==', 'YWI=', 'YWJj']) expect(isBase64(text)).toBe(true);
    for (const text of ['====', 'Y===', '=YWI', 'Y=WI', 'YQ=', 'YQ', 'YQ==YQ==', 'YW\u0149j']) {
      expect(isBase64(text)).toBe(false);
    }
  });
});
