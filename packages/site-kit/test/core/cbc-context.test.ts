import { createCipheriv, createDecipheriv, createSecretKey, randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decryptWithKey, encryptWithKey, openWithKey } from '../../src/crypto/aes.ts';
import { cbcDecryptRaw, cbcEncrypt } from '../../src/crypto/cbc-context.ts';
import { unpaddedLength } from '../../src/crypto/cbc-rules.ts';

// The issuer and the gateway reuse one cipher context per key instead of calling createCipheriv per
// message. These properties hold the reused context to what a fresh createCipheriv gives, whatever
// was encrypted or decrypted before with the same key, or with another.
const IV = Buffer.from('0123456789abcdef', 'ascii');
const keyBytes = fc.uint8Array({ minLength: 32, maxLength: 32 });

function referenceEncrypt(key: Uint8Array, text: string): Buffer {
  const cipher = createCipheriv('aes-256-cbc', key, IV);
  return Buffer.concat([cipher.update(text, 'utf8'), cipher.final()]);
}

function referenceDecryptRaw(key: Uint8Array, bytes: Uint8Array): Buffer {
  const decipher = createDecipheriv('aes-256-cbc', key, IV).setAutoPadding(false);
  return Buffer.concat([decipher.update(bytes), decipher.final()]);
}

type Step =
  { op: 'encrypt'; text: string; key: number } | { op: 'decrypt'; bytes: Uint8Array; key: number };

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({
    op: fc.constant('encrypt' as const),
    text: fc.string({ unit: 'grapheme', maxLength: 80 }),
    key: fc.nat(2),
  }),
  fc.record({
    op: fc.constant('decrypt' as const),
    bytes: fc
      .integer({ min: 1, max: 6 })
      .chain((blocks) => fc.uint8Array({ minLength: blocks * 16, maxLength: blocks * 16 })),
    key: fc.nat(2),
  }),
);

describe('one reused AES-256-CBC context per key', () => {
  it('encrypts and decrypts every message exactly as a fresh createCipheriv / createDecipheriv, in any order and across keys', () => {
    fc.assert(
      fc.property(
        fc.array(keyBytes, { minLength: 3, maxLength: 3 }),
        fc.array(step, { maxLength: 30 }),
        (raw, steps) => {
          const keys = raw.map((bytes) => createSecretKey(bytes));
          for (const s of steps) {
            const bytes = raw[s.key] as Uint8Array;
            const key = keys[s.key]!;
            if (s.op === 'encrypt') {
              expect(cbcEncrypt(key, s.text).equals(referenceEncrypt(bytes, s.text))).toBe(true);
            } else {
              expect(cbcDecryptRaw(key, s.bytes).equals(referenceDecryptRaw(bytes, s.bytes))).toBe(
                true,
              );
            }
          }
        },
      ),
      { numRuns: 200 },
    );
  });

  it('opens any ciphertext as a fresh context with node:crypto padding would: the same text when whole, and "not whole" exactly when createDecipheriv throws', () => {
    const keyBuffer = randomBytes(32);
    const key = createSecretKey(keyBuffer);
    fc.assert(
      fc.property(
        fc
          .integer({ min: 1, max: 4 })
          .chain((blocks) => fc.uint8Array({ minLength: blocks * 16, maxLength: blocks * 16 })),
        fc.boolean(),
        (bytes, whole) => {
          // Half the cases are real messages, whose padding is right.
          const ciphertext = whole
            ? referenceEncrypt(keyBuffer, Buffer.from(bytes).toString('latin1'))
            : Buffer.from(bytes);
          let expected: string | undefined;
          try {
            const decipher = createDecipheriv('aes-256-cbc', keyBuffer, IV);
            const plain = Buffer.concat([decipher.update(ciphertext), decipher.final()]);
            expected = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(plain);
          } catch {
            expected = undefined;
          }
          const opened = openWithKey(ciphertext.toString('base64'), key);
          expect(opened.intact).toBe(expected !== undefined);
          if (expected !== undefined) expect(opened.text).toBe(expected);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('gives the vector ciphertext again after a failed decryption with the same key', () => {
    const key = createSecretKey(Buffer.from('a'.repeat(32)));
    expect(() => decryptWithKey(Buffer.alloc(32, 7).toString('base64'), key)).toThrow(
      /Decryption failed/,
    );
    expect(encryptWithKey('sample data', key)).toBe('MManHcZraU/jcWYK/cQRgw==');
    expect(decryptWithKey('MManHcZraU/jcWYK/cQRgw==', key)).toBe('sample data');
  });
});

describe('the padding check', () => {
  it('accepts exactly the paddings PKCS7 allows, and keeps the whole length otherwise', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 16, maxLength: 48 }).filter((b) => b.length % 16 === 0),
        (plain) => {
          const pad = plain[plain.length - 1] as number;
          const valid =
            pad >= 1 && pad <= 16 && plain.subarray(plain.length - pad).every((b) => b === pad);
          expect(unpaddedLength(plain)).toEqual({
            length: valid ? plain.length - pad : plain.length,
            padded: valid,
          });
        },
      ),
      { numRuns: 500 },
    );
    const full = new Uint8Array(32).fill(16);
    expect(unpaddedLength(full)).toEqual({ length: 16, padded: true });
  });
});
