import { createCipheriv, createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  createTokenIssuer,
  createTokenVerifier,
  decrypt,
  decryptAsync,
  SiteKitError,
  type HashEncoding,
} from '../../src/index.ts';
import * as web from '../../src/web/index.ts';
import { TUTO } from '../support/site.ts';

// Claims that every ASCII test string would let slip: the hash input is UTF-8 (not Latin-1), a
// decrypted text must be UTF-8, and a v2 track type is one of the service's names exactly.

const NON_ASCII_USER = 'Zoë-Ærøskøbing-用户-🎬';

/** base64(sha256(S)) as the spec says, computed here from S's UTF-8 bytes, independently. */
function expectedHash(s: string, encoding: HashEncoding): string {
  const digest = createHash('sha256').update(Buffer.from(s, 'utf8')).digest();
  return encoding === 'raw-digest'
    ? digest.toString('base64')
    : Buffer.from(digest.toString('hex').toUpperCase(), 'ascii').toString('base64');
}

describe('the hash input is UTF-8', () => {
  it.each([
    ['v1, hex-text', 'hex-text', undefined],
    ['v1, raw-digest', 'raw-digest', undefined],
    ['v2', 'raw-digest', { policy_version: 2 } as const],
  ] as const)(
    '%s: a non-ASCII user_id hashes as its UTF-8 bytes, on Node and Web Crypto',
    async (_n, encoding, policy) => {
      const options = { ...TUTO, hashEncoding: encoding };
      const issue = { cid: 'movie-ü', userId: NON_ASCII_USER, ...(policy ? { policy } : {}) };
      for (const token of [
        createTokenIssuer(options).issue(issue),
        await web.createTokenIssuerAsync(options).issue(issue),
      ]) {
        const json = JSON.parse(Buffer.from(token, 'base64').toString('utf8')) as Record<
          string,
          string
        >;
        const data = json['policy'] ?? json['token'];
        const s = `${TUTO.accessKey}${json['drm_type']}${json['site_id']}${json['user_id']}${json['cid']}${data}${json['timestamp']}`;
        expect(json['user_id']).toBe(NON_ASCII_USER);
        expect(json['hash']).toBe(expectedHash(s, encoding));
        expect(createTokenVerifier(options).verify(token).userId).toBe(NON_ASCII_USER);
      }
    },
  );
});

describe('decrypt accepts only UTF-8 text', () => {
  // Right padding, and bytes that are no UTF-8: a lone continuation byte, an overlong form, a
  // surrogate, and a truncated sequence.
  const notUtf8 = [[0x80], [0xc0, 0xaf], [0xed, 0xa0, 0x80], [0x41, 0xe2, 0x82]];
  const encrypted = (bytes: number[]) => {
    const cipher = createCipheriv(
      'aes-256-cbc',
      Buffer.from(TUTO.siteKey),
      Buffer.from('0123456789abcdef'),
    );
    return Buffer.concat([cipher.update(Buffer.from(bytes)), cipher.final()]).toString('base64');
  };

  it.each(notUtf8.map((b) => [Buffer.from(b).toString('hex'), b] as const))(
    'bytes %s fail with DECRYPT_FAILED on decrypt, decryptAsync and the Web Crypto twin',
    async (_hex, bytes) => {
      const ciphertext = encrypted(bytes);
      const message =
        'Decryption failed (bad PKCS7 padding, or not UTF-8 text): the site key is wrong or the ciphertext was changed.';
      expect(() => decrypt(ciphertext, TUTO.siteKey)).toThrow(
        new SiteKitError('DECRYPT_FAILED', message),
      );
      await expect(decryptAsync(ciphertext, TUTO.siteKey)).rejects.toThrow(message);
      await expect(web.decryptAsync(ciphertext, TUTO.siteKey)).rejects.toThrow(message);
    },
  );

  it('the same bytes as valid UTF-8 decrypt (the check is not a refusal of everything non-ASCII)', async () => {
    const ciphertext = encrypted([...Buffer.from(NON_ASCII_USER, 'utf8')]);
    expect(decrypt(ciphertext, TUTO.siteKey)).toBe(NON_ASCII_USER);
    expect(await web.decryptAsync(ciphertext, TUTO.siteKey)).toBe(NON_ASCII_USER);
  });
});

describe('allowed_track_types', () => {
  const issuer = createTokenIssuer(TUTO);
  const issue = (value: string) =>
    issuer.issue({
      cid: 'movie-1',
      policy: { policy_version: 2, playback_policy: { allowed_track_types: value } as never },
    });

  it.each(['ALL', 'SD_ONLY', 'SD_HD', 'SD_UHD1', 'SD_UHD2'])('%s is accepted', (value) => {
    const token = issue(value);
    const verified = createTokenVerifier(TUTO).verify(token);
    expect(verified.version === 2 && verified.policy.playback_policy?.allowed_track_types).toBe(
      value,
    );
  });

  it.each(['HD', 'UHD1', 'SD', 'sd_only', 'SD_ONLY ', ''])(
    '%j is refused with INVALID_POLICY',
    (value) => {
      expect(() => issue(value)).toThrow(SiteKitError);
      expect(() => issue(value)).toThrow(/playback_policy\.allowed_track_types/);
    },
  );
});
