import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decrypt, encrypt, SiteKitError } from '../../src/index.ts';
import { vectors } from '../../../../test/support/vectors.ts';
import { failure } from '../support/failure.ts';

const KEY = 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa';

describe('AES-256-CBC vectors', () => {
  for (const v of [...vectors.aes, ...vectors.gateway]) {
    it(`encrypts "${v.name}" to the vector's ciphertext`, () => {
      expect(encrypt(v.plaintext, 'key' in v ? v.key : v.site_key)).toBe(v.ciphertext);
    });
    it(`decrypts "${v.name}" back to the vector's plaintext`, () => {
      expect(decrypt(v.ciphertext, 'key' in v ? v.key : v.site_key)).toBe(v.plaintext);
    });
  }

  it('accepts the key as 32 raw bytes as well as a 32-character string', () => {
    const bytes = new TextEncoder().encode(KEY);
    expect(encrypt('sample data', bytes)).toBe('MManHcZraU/jcWYK/cQRgw==');
  });
});

describe('AES round trip', () => {
  it('decrypt(encrypt(text)) gives back any UTF-8 text', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), (text) => {
        expect(decrypt(encrypt(text, KEY), KEY)).toBe(text);
      }),
      { numRuns: 300 },
    );
  });
});

describe('AES errors', () => {
  it('rejects a site key that is not 32 bytes, saying how long it was', () => {
    const error = failure(() => encrypt('x', 'short-key'));
    expect(error.code).toBe('INVALID_SITE_KEY');
    expect(error.message).toMatch(/exactly 32 bytes for AES-256, got 9/);
    expect(error.message).not.toContain('short-key');
  });

  it('counts a non-ASCII site key in bytes and says so', () => {
    const error = failure(() => encrypt('x', 'ü'.repeat(31)));
    expect(error.code).toBe('INVALID_SITE_KEY');
    expect(error.message).toMatch(/got 62\b.*non-ASCII/);
  });

  it('rejects a raw key of the wrong length', () => {
    expect(failure(() => decrypt('MManHcZraU/jcWYK/cQRgw==', new Uint8Array(16))).code).toBe(
      'INVALID_SITE_KEY',
    );
  });

  it('rejects text that is not canonical base64', () => {
    for (const bad of ['not base64!', 'MManHcZraU/jcWYK/cQRgw', 'MManHcZraU_jcWYK-cQRgw==']) {
      const error = failure(() => decrypt(bad, KEY));
      expect(error.code).toBe('INVALID_BASE64');
      expect(error.message).toMatch(/not valid base64/);
    }
  });

  it('rejects a ciphertext that is not a whole number of blocks', () => {
    const error = failure(() => decrypt(Buffer.alloc(20).toString('base64'), KEY));
    expect(error.code).toBe('DECRYPT_FAILED');
    expect(error.message).toMatch(/20 bytes.*multiple of 16/);
  });

  it('reports a wrong key as DECRYPT_FAILED, never with an OpenSSL message', () => {
    const wrong = 'bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb';
    let failures = 0;
    for (let i = 0; i < 50; i++) {
      const ciphertext = encrypt(`message ${i}`, KEY);
      try {
        decrypt(ciphertext, wrong);
      } catch (error) {
        failures++;
        expect(error).toBeInstanceOf(SiteKitError);
        expect((error as SiteKitError).code).toBe('DECRYPT_FAILED');
        expect((error as Error).message).not.toMatch(/bad decrypt|error:|openssl/i);
        expect((error as Error).message).not.toContain(wrong);
      }
    }
    // A wrong key yields valid padding only by chance (about 1 in 256), and then rarely valid UTF-8.
    expect(failures).toBeGreaterThanOrEqual(45);
  });

  it('rejects non-string input with INVALID_INPUT', () => {
    expect(failure(() => encrypt(42 as unknown as string, KEY)).code).toBe('INVALID_INPUT');
    expect(failure(() => decrypt({} as unknown as string, KEY)).code).toBe('INVALID_INPUT');
  });
});
