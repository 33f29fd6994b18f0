import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeBase64, isBase64 } from '../../src/encoding/base64.ts';

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

// From 256 characters on, isBase64 and decodeBase64 try Node's own decode and encode first; what
// they answer must not change: the same rule, the same bytes, the same error.
const long = fc
  .uint8Array({ minLength: 192, maxLength: 900 })
  .map((b) => Buffer.from(b).toString('base64'));
const longTexts = fc.oneof(
  long,
  // A character put in or in place of another, anywhere (padding and url-safe alphabet included).
  fc.tuple(long, fc.nat(), chars, fc.boolean()).map(([text, at, c, replace]) => {
    const i = at % (text.length + 1);
    return text.slice(0, i) + c + text.slice(replace ? i + 1 : i);
  }),
  // Cut anywhere, or its padding dropped.
  fc.tuple(long, fc.nat()).map(([text, at]) => text.slice(0, at % text.length)),
  long.map((text) => text.replace(/=+$/, '')),
  // Padding bits that are not zero: the rule's, not what Buffer writes.
  long
    .filter((text) => text.endsWith('='))
    .map(
      (text) =>
        `${text.slice(0, text.endsWith('==') ? -3 : -2)}${text.endsWith('==') ? 'R==' : 'B='}`,
    ),
);

describe('isBase64 and decodeBase64 on long values', () => {
  it('accept exactly what the rule accepts, and decode what Buffer decodes', () => {
    fc.assert(
      fc.property(longTexts, (text) => {
        const valid = RULE.test(text);
        expect(isBase64(text)).toBe(valid);
        if (valid) {
          expect(Buffer.from(decodeBase64(text, 'The value'))).toEqual(Buffer.from(text, 'base64'));
        } else {
          expect(() => decodeBase64(text, 'The value')).toThrow(
            expect.objectContaining({
              code: 'INVALID_BASE64',
              message:
                'The value is not valid base64 (standard alphabet A-Z a-z 0-9 + /, padded with = to a multiple of 4 characters).',
            }),
          );
        }
      }),
      { numRuns: 2000 },
    );
  });

  it('take padding bits that are not zero, as the rule does', () => {
    const text = `${'AAAA'.repeat(100)}QR==`;
    expect(isBase64(text)).toBe(true);
    expect(Array.from(decodeBase64(text, 'The value').subarray(-1))).toEqual([0x41]);
    expect(isBase64(`${'AAAA'.repeat(100)}-_==`)).toBe(false);
  });
});

describe('a long value checked, then decoded', () => {
  it('decodes to its own bytes, a copy per caller', () => {
    const first = Buffer.from(Array.from({ length: 600 }, (_, i) => i % 251)).toString('base64');
    const second = Buffer.alloc(600, 7).toString('base64');
    expect(isBase64(first)).toBe(true);
    // Another value decoded in between gets its own bytes, not the checked one's.
    expect(Buffer.from(decodeBase64(second, 'The value'))).toEqual(Buffer.from(second, 'base64'));
    expect(isBase64(first)).toBe(true);
    const taken = decodeBase64(first, 'The value');
    expect(Buffer.from(taken)).toEqual(Buffer.from(first, 'base64'));
    taken.fill(0);
    // The caller changed its bytes: the next decoding of the same value must not see that.
    expect(Buffer.from(decodeBase64(first, 'The value'))).toEqual(Buffer.from(first, 'base64'));
  });
});
