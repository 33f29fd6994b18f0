import { createCipheriv } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { decrypt, decryptAsync, SiteKitError } from '../../src/index.ts';
import { decryptAsync as webDecryptAsync } from '../../src/web/index.ts';

// Ciphertexts made here with node:crypto and no padding, so each can carry exactly the padding
// (or the length) under test: the site-kit decrypt paths must refuse a full padding block whose
// first byte is not 16, and name the length of a ciphertext that is not whole blocks.

const KEY = 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa';
const IV = Buffer.from('0123456789abcdef');

function rawCiphertext(plain: Uint8Array): string {
  const cipher = createCipheriv('aes-256-cbc', Buffer.from(KEY), IV).setAutoPadding(false);
  return Buffer.concat([cipher.update(plain), cipher.final()]).toString('base64');
}

const decrypts: [string, (ciphertext: string) => Promise<string>][] = [
  ['decrypt', async (c) => decrypt(c, KEY)],
  ['decryptAsync', (c) => decryptAsync(c, KEY)],
  ['decryptAsync (Web Crypto)', (c) => webDecryptAsync(c, KEY)],
];

async function failureOf(run: () => Promise<unknown>): Promise<SiteKitError> {
  try {
    await run();
  } catch (error) {
    if (error instanceof SiteKitError) return error;
    throw error;
  }
  throw new Error('expected a SiteKitError');
}

describe.each(decrypts)('%s', (_name, open) => {
  const text = Buffer.from('0123456789ABCDEF');

  it('opens a message of one whole block, whose padding is a full block of 16', async () => {
    const plain = Buffer.concat([text, Buffer.alloc(16, 16)]);
    expect(await open(rawCiphertext(plain))).toBe('0123456789ABCDEF');
  });

  it('refuses a full padding block whose first byte is not 16', async () => {
    const padding = Buffer.alloc(16, 16);
    padding[0] = 0x5a;
    const error = await failureOf(() => open(rawCiphertext(Buffer.concat([text, padding]))));
    expect(error.code).toBe('DECRYPT_FAILED');
  });

  it('names the length of a ciphertext that is not whole 16-byte blocks', async () => {
    const cut = Buffer.from(rawCiphertext(Buffer.concat([text, Buffer.alloc(16, 16)])), 'base64');
    const error = await failureOf(() => open(cut.subarray(0, 20).toString('base64')));
    expect(error.code).toBe('DECRYPT_FAILED');
    expect(error.message).toMatch(/The ciphertext is 20 bytes/);
  });
});
