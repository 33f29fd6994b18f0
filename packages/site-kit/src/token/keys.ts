import type { KeyObject } from 'node:crypto';
import { z } from 'zod';
import { mustBe } from '../schemas/must-be.ts';
import { toAesKey, type SiteKeyInput } from '../crypto/site-key.ts';
import { SiteKitError } from '../errors.ts';
import { describeIssues } from '../schemas/issues.ts';
import { HASH_ENCODINGS, type HashEncoding } from './hash.ts';

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

export interface ValidatedCredentials {
  siteId: string;
  aesKey: KeyObject;
  accessKey: string;
  hashEncoding: HashEncoding;
}

export const hashEncodingSchema = z.enum(HASH_ENCODINGS as [HashEncoding, ...HashEncoding[]], {
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
  const parsed = hashEncodingSchema.optional().safeParse(value);
  if (!parsed.success)
    throw new SiteKitError('INVALID_INPUT', describeIssues(parsed.error, 'hashEncoding'));
  return parsed.data ?? 'hex-text';
}

/** Checks the site's credentials once, so that issuing and verifying reuse them without re-deriving. */
export function validateCredentials(options: SiteCredentials): ValidatedCredentials {
  if (typeof options.siteId !== 'string' || options.siteId.length === 0) {
    throw new SiteKitError(
      'INVALID_INPUT',
      'siteId: must be a non-empty string: the site ID from the administration site.',
    );
  }
  return {
    siteId: options.siteId,
    aesKey: toAesKey(options.siteKey),
    accessKey: checkAccessKey(options.accessKey),
    hashEncoding: checkHashEncoding(options.hashEncoding),
  };
}
