import type { AsyncCrypto } from '../crypto/async-crypto.ts';
import { SiteKitError, TokenError, type SiteKitErrorCode } from '../errors.ts';
import { parseTimestamp } from '../schemas/timestamp.ts';
import { readLicenseToken, type ReadLicenseToken } from './decode.ts';
import { createAsyncTokenVerifier } from './async-verifier.ts';
import type { HashEncoding } from './hash-input.ts';
import {
  expectedEncoding,
  hashedOf,
  otherEncodings,
  verifySettings,
  type VerifiedLicenseToken,
  type VerifyOptions,
} from './verify-rules.ts';

// A token inspector's answer as data rather than a thrown error: a console shows every field, the
// hash readings, the validity window and the refusal side by side, which a throwing verifier
// cannot give. The verdict itself is the verifier's own (no rule is restated here).

/**
 * The license service's refusal code for each of site-kit's token errors (the wire addendum's
 * table), as the emulator answers them. `own` marks the project's codes where the guide has none.
 */
export const TOKEN_REFUSAL_CODES: Readonly<
  Partial<Record<SiteKitErrorCode, { code: string; own: boolean }>>
> = {
  MALFORMED_TOKEN: { code: '7009', own: false },
  INVALID_FIELD: { code: '7013', own: false },
  HASH_MISMATCH: { code: '7019', own: false },
  TOKEN_EXPIRED: { code: '7011', own: false },
  TOKEN_NOT_YET_VALID: { code: '7011', own: false },
  DECRYPT_FAILED: { code: '7016', own: false },
  INVALID_POLICY: { code: '6002', own: true },
  SITE_MISMATCH: { code: '1003', own: false },
};

/** An invalid drm_type has its own code in the guide. */
export const DRM_TYPE_REFUSAL_CODE = '7018';

/**
 * What inspecting a token found: every field it could read, whether it verifies and, when not, the
 * refusal code the license service would answer with (`own` when the code is the project's own).
 */
export interface TokenInspection {
  /** The token JSON, its version and reader warnings; absent when the token cannot be read. */
  read?: ReadLicenseToken;
  /** With keys: the reading the version expects and the one that matches (none: wrong key or field). */
  hash?: { expected: HashEncoding; matching: HashEncoding | undefined };
  /** The validity window in ms since the epoch, as the verifier applies it. */
  window?: { issuedMs: number; notBeforeMs: number; expiresMs: number; nowMs: number };
  /** With keys, when the service would accept the token. */
  verified?: VerifiedLicenseToken;
  /** Why the service would refuse the token (or why the keys themselves are unusable). */
  error?: { code: SiteKitErrorCode; message: string; field?: string };
  /** The service's refusal code for `error`; absent for errors of the keys, which are the site's. */
  refusal?: { code: string; own: boolean };
}

/** The keys are optional when inspecting: without them the fields are read but nothing is verified. */
export type InspectOptions = Partial<Omit<VerifyOptions, 'siteKey' | 'accessKey'>> &
  Partial<Pick<VerifyOptions, 'siteKey' | 'accessKey'>>;

/** Reads a token and, with both keys, verifies it; never throws a SiteKitError. */
export async function inspectTokenWith<K>(
  crypto: AsyncCrypto<K>,
  token: string,
  options: InspectOptions,
): Promise<TokenInspection> {
  const report: TokenInspection = {};
  try {
    report.read = readLicenseToken(token);
    // Without keys the window is still drawn: the access key only feeds the hash, so a stand-in
    // lets the verifier's own settings (validity, skew) be read.
    const settings = verifySettings({ ...options, accessKey: options.accessKey ?? '-' });
    const nowOption = options.now ?? Date.now();
    const nowMs = typeof nowOption === 'number' ? nowOption : nowOption.getTime();
    const issuedMs = parseTimestamp(report.read.fields.timestamp) as number;
    report.window = {
      issuedMs,
      notBeforeMs: issuedMs - settings.skewMs,
      expiresMs: issuedMs + settings.validityMs,
      nowMs,
    };
    if (options.siteKey === undefined || options.accessKey === undefined) return report;
    const verifier = createAsyncTokenVerifier(crypto, {
      ...options,
      siteKey: options.siteKey,
      accessKey: options.accessKey,
    });
    report.hash = await hashReadings(crypto, options.accessKey, settings, report.read);
    report.verified = await verifier.verify(token, { now: nowMs });
  } catch (error) {
    if (!(error instanceof SiteKitError)) throw error;
    const field = error instanceof TokenError ? error.field : undefined;
    report.error = { code: error.code, message: error.message, ...(field ? { field } : {}) };
    const refusal =
      field === 'drm_type'
        ? { code: DRM_TYPE_REFUSAL_CODE, own: false }
        : TOKEN_REFUSAL_CODES[error.code];
    if (refusal !== undefined) report.refusal = refusal;
  }
  return report;
}

async function hashReadings<K>(
  crypto: AsyncCrypto<K>,
  accessKey: string,
  settings: ReturnType<typeof verifySettings>,
  read: ReadLicenseToken,
): Promise<TokenInspection['hash']> {
  const hashed = hashedOf(read);
  const expected = expectedEncoding(settings, read.version);
  let matching: HashEncoding | undefined;
  for (const encoding of [expected, ...otherEncodings(expected)]) {
    const candidate = await crypto.tokenHash(accessKey, hashed, encoding);
    if (matching === undefined && crypto.hashesEqual(candidate, hashed.hash)) matching = encoding;
  }
  return { expected, matching };
}
