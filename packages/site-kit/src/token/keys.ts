import * as z from 'zod/mini';
import { mustBe } from '../schemas/must-be.ts';
import type { SiteKeyInput } from '../crypto/site-key.ts';
import { SiteKitError } from '../errors.ts';
import { describeIssues } from '../schemas/issues.ts';
import { HASH_ENCODINGS, type HashEncoding } from './hash-input.ts';

/**
 * A site's keys from the administration site: what every issuer, verifier and gateway handler is
 * created with.
 */
export interface SiteCredentials {
  /** Site ID from the administration site. */
  siteId: string;
  /** Site key (AES-256 key): 32 characters, or 32 raw bytes. */
  siteKey: SiteKeyInput;
  /** Site access key (hash key). */
  accessKey: string;
  /** How the hash digest is encoded; default 'hex-text', the spec's reading. */
  hashEncoding?: HashEncoding;
}

/** The credentials checked once, with the AES key in the form the crypto in use takes (`K`). */
export interface ValidatedCredentials<K> {
  siteId: string;
  aesKey: K;
  accessKey: string;
  hashEncoding: HashEncoding;
}

const hashEncodingSchema = z.enum(HASH_ENCODINGS as [HashEncoding, ...HashEncoding[]], {
  error: mustBe('"hex-text" or "raw-digest"'),
});

export function checkAccessKey(accessKey: unknown): string {
  if (typeof accessKey !== 'string' || accessKey.length === 0) {
    throw new SiteKitError(
      'INVALID_ACCESS_KEY',
      'The site access key must be a non-empty string: the access key (hash key) from the administration site.',
    );
  }
  return accessKey;
}

export function checkHashEncoding(value: unknown): HashEncoding {
  if (value === undefined) return 'hex-text';
  const parsed = hashEncodingSchema.safeParse(value);
  if (!parsed.success)
    throw new SiteKitError('INVALID_INPUT', describeIssues(parsed.error, 'hashEncoding'));
  return parsed.data;
}

/**
 * Checks the site's credentials once, so that issuing and verifying reuse them without re-deriving.
 * `toKey` validates the site key and makes the key object of the crypto in use.
 */
export function validateCredentials<K>(
  options: SiteCredentials,
  toKey: (siteKey: SiteKeyInput) => K,
): ValidatedCredentials<K> {
  if (typeof options.siteId !== 'string' || options.siteId.length === 0) {
    throw new SiteKitError(
      'INVALID_INPUT',
      'siteId: must be a non-empty string: the site ID from the administration site.',
    );
  }
  return {
    siteId: options.siteId,
    aesKey: toKey(options.siteKey),
    accessKey: checkAccessKey(options.accessKey),
    hashEncoding: checkHashEncoding(options.hashEncoding),
  };
}
