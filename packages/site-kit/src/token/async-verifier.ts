import type { AsyncCrypto } from '../crypto/async-crypto.ts';
import type { Opened } from '../crypto/cbc-rules.ts';
import { readTokenTimed, type ReadLicenseToken } from './decode.ts';
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

/** The async twin of `TokenVerifier`. */
export interface AsyncTokenVerifier {
  /** {@link TokenVerifier.verify}; rejects with the same {@link TokenError} codes. */
  verify(token: string, options?: VerifyCallOptions): Promise<VerifiedLicenseToken>;
}

/** `createTokenVerifier` on the given crypto; the options are checked here, synchronously. */
export function createAsyncTokenVerifier<K>(
  crypto: AsyncCrypto<K>,
  options: Omit<VerifyOptions, 'now'>,
): AsyncTokenVerifier {
  const key = crypto.key(options.siteKey);
  const settings = verifySettings(options);
  return {
    verify: (token, call) =>
      verify(crypto, key, settings, token, call?.json, call?.now ?? Date.now()),
  };
}

async function verify<K>(
  crypto: AsyncCrypto<K>,
  key: K,
  settings: VerifySettings,
  token: string,
  json: unknown,
  now: Date | number,
): Promise<VerifiedLicenseToken> {
  const { read, issuedMs } = readTokenTimed(token, json);
  checkSite(settings, read);
  await checkHash(crypto, settings, read);
  const times = checkTime(settings, read.fields.timestamp, issuedMs, now);
  const data = read.version === 1 ? read.fields.token : read.fields.policy;
  let opened: Opened;
  try {
    opened = await crypto.open(data, key);
  } catch (error) {
    throw undecryptable(error);
  }
  return verifiedToken(read, times, policyJsonOf(opened));
}

async function checkHash<K>(
  crypto: AsyncCrypto<K>,
  settings: VerifySettings,
  read: ReadLicenseToken,
): Promise<void> {
  const hashed = hashedOf(read);
  const expected = expectedEncoding(settings, read.version);
  const hash = await crypto.tokenHash(settings.accessKey, hashed, expected);
  if (crypto.hashesEqual(hash, hashed.hash)) return;
  let other: (typeof expected)[] = [];
  for (const encoding of otherEncodings(expected)) {
    const candidate = await crypto.tokenHash(settings.accessKey, hashed, encoding);
    if (crypto.hashesEqual(candidate, hashed.hash)) other = [encoding];
  }
  throw hashMismatch(read.version, expected, other[0]);
}
