import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  base64Text,
  base64ToBytes,
  bytesToBase64,
  bytesToBase64url,
  bytesToHex,
  hexToBytes,
} from '../src/web/bytes.ts';
import {
  decryptRawCbc,
  decryptRawCbcWeb,
  importAesKey,
  importWebAesKey,
  sha256,
} from '../src/web/crypto.ts';

// On Node the emulator hashes and decrypts with node:crypto, in a browser page (the msw kit) with
// Web Crypto; tests run on Node, so here both paths must give the same bytes. The byte encodings
// are hand-written tables: Buffer is the reference.

describe('crypto: node:crypto and Web Crypto agree', () => {
  it('decrypts any whole blocks to the same raw plaintext, whatever their padding', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uint8Array({ minLength: 32, maxLength: 32 }),
        fc.uint8Array({ minLength: 16, maxLength: 16 }),
        fc
          .integer({ min: 1, max: 6 })
          .chain((n) => fc.uint8Array({ minLength: n * 16, maxLength: n * 16 })),
        async (key, iv, blocks) => {
          const fast = await decryptRawCbc(await importAesKey(key), iv, blocks);
          const web = await decryptRawCbcWeb(await importWebAesKey(key), iv, blocks);
          expect(bytesToHex(fast)).toBe(bytesToHex(web));
          expect(fast.length).toBe(blocks.length);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('hashes text to the SHA-256 Web Crypto gives', async () => {
    for (const text of ['', 'Mozilla/5.0 Chrome/120.0', 'é😀'.repeat(50)]) {
      const web = new Uint8Array(
        await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text)),
      );
      expect(bytesToHex(await sha256(text))).toBe(bytesToHex(web));
    }
  });
});

describe('byte encodings', () => {
  it('encode as Buffer does', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 100 }), (bytes) => {
        const buffer = Buffer.from(bytes);
        expect(bytesToBase64(bytes)).toBe(buffer.toString('base64'));
        expect(bytesToBase64url(bytes)).toBe(buffer.toString('base64url'));
        expect(bytesToHex(bytes)).toBe(buffer.toString('hex'));
        expect([...hexToBytes(buffer.toString('hex').toUpperCase())]).toEqual([...bytes]);
      }),
    );
  });

  it('decode standard and URL-safe base64 as Buffer does, and skip any other character', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 100 }), fc.nat(), (bytes, at) => {
        const text = Buffer.from(bytes).toString('base64');
        expect([...base64ToBytes(text)]).toEqual([...bytes]);
        expect([...base64ToBytes(Buffer.from(bytes).toString('base64url'))]).toEqual([...bytes]);
        const cut = at % (text.replace(/=+$/, '').length + 1);
        const noisy = `${text.slice(0, cut)} .\n😀é${text.slice(cut)}`;
        expect([...base64ToBytes(noisy)]).toEqual([...bytes]);
      }),
    );
    // The first "=" ends the data.
    expect([...base64ToBytes('QQ==QUJD')]).toEqual([0x41]);
  });

  it('reads base64 text as the lenient table does, natively or not, and tells standard base64', () => {
    const viaTable = (text: string) => new TextDecoder().decode(base64ToBytes(text));
    const standard = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
    const read = (form: string) => {
      expect(base64Text(form)).toEqual({ text: viaTable(form), standard: standard.test(form) });
    };
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 60 }), fc.nat(), (json, at) => {
        const text = Buffer.from(json).toString('base64');
        const cut = at % (text.length + 1);
        for (const form of [
          text,
          text.replace(/=+$/, ''),
          Buffer.from(json).toString('base64url'),
          `${text.slice(0, cut)}-_=${text.slice(cut)}`,
          `${text.slice(0, cut)} ${text.slice(cut)}`,
          `${text.slice(0, cut)}\n${text.slice(cut, -1)}`,
          `${text}==`,
        ]) {
          read(form);
        }
      }),
    );
    // Characters of the alphabet, "=" and whitespace in any order: atob takes some, refuses others.
    fc.assert(
      fc.property(
        fc.string({
          unit: fc.constantFrom('A', 'z', '0', '+', '/', '=', ' ', '\n', '-'),
          maxLength: 12,
        }),
        read,
      ),
    );
    expect(base64Text(Buffer.from('{"a":"é😀"}').toString('base64'))).toEqual({
      text: '{"a":"é😀"}',
      standard: true,
    });
  });
});
