import type { KeyObject } from 'node:crypto';
import { openWithKey } from '../crypto/aes.ts';
import { toAesKey } from '../crypto/aes-key.ts';
import type { Opened } from '../crypto/cbc-rules.ts';
import { readTokenTimed } from './decode.ts';
import { hashesEqual, tokenHash } from './hash.ts';
import {
  checkSite,
  checkTime,
  expectedEncoding,
  hashedOf,
  hashMismatch,
  otherEncodings,
  policyJsonOf,
  undecryptable,
  verifiedToken,
  verifySettings,
  type VerifiedLicenseToken,
  type VerifyCallOptions,
  type VerifyOptions,
  type VerifySettings,
} from './verify-rules.ts';
import type { ReadLicenseToken } from './decode.ts';

export {
  DEFAULT_VALIDITY_SECONDS,
  type VerifyOptions,
  type VerifiedLicenseToken,
  type VerifiedLicenseTokenV1,
  type VerifiedLicenseTokenV2,
  type VerifyCallOptions,
} from './verify-rules.ts';

/**
 * Verifies license tokens for one site, as the license service would; made by {@link
 * createTokenVerifier}.
 */
export interface TokenVerifier {
  /**
   * Reads, checks (site, hash, time) and decrypts a token; throws a {@link TokenError} whose code
   * says why the service would refuse it. `now` defaults to the current time; `json` is the token's
   * JSON when the caller has decoded it already (see {@link VerifyCallOptions}).
   */
  verify(token: string, options?: VerifyCallOptions): VerifiedLicenseToken;
}

/** Creates a verifier whose keys are checked once: what the license service does with each token. */
export function createTokenVerifier(options: Omit<VerifyOptions, 'now'>): TokenVerifier {
  const key = toAesKey(options.siteKey);
  const settings = verifySettings(options);
  return {
    verify: (token, call) => verify(key, settings, token, call?.json, call?.now ?? Date.now()),
  };
}

/** One-off form of `createTokenVerifier(options).verify(token)`. */
export function verifyLicenseToken(token: string, options: VerifyOptions): VerifiedLicenseToken {
  return createTokenVerifier(options).verify(token, { now: options.now ?? Date.now() });
}

function verify(
  key: KeyObject,
  settings: VerifySettings,
  token: string,
  json: unknown,
  now: Date | number,
): VerifiedLicenseToken {
  const { read, issuedMs } = readTokenTimed(token, json);
  checkSite(settings, read);
  checkHash(settings, read);
  const times = checkTime(settings, read.fields.timestamp, issuedMs, now);
  const data = read.version === 1 ? read.fields.token : read.fields.policy;
  let opened: Opened;
  try {
    opened = openWithKey(data, key);
  } catch (error) {
    throw undecryptable(error);
  }
  return verifiedToken(read, times, policyJsonOf(opened));
}

function checkHash(settings: VerifySettings, read: ReadLicenseToken): void {
  const hashed = hashedOf(read);
  const expected = expectedEncoding(settings, read.version);
  if (hashesEqual(tokenHash(settings.accessKey, hashed, expected), hashed.hash)) return;
  const other = otherEncodings(expected).find((e) =>
    hashesEqual(tokenHash(settings.accessKey, hashed, e), hashed.hash),
  );
  throw hashMismatch(read.version, expected, other);
}
