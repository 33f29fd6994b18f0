import {
  canonicalDrmType,
  createTokenVerifierAsync,
  DRM_TYPES,
  readLicenseToken,
  SiteKitError,
  TokenError,
  type AsyncTokenVerifier,
  type VerifiedLicenseToken,
} from '@multidrm/site-kit';
import type { Authorization } from './authorization.ts';
import type { EmulatorConfig } from './config.ts';
import { EmulatorError, type EmulatorErrorCode } from './errors.ts';
import { hashReadings } from './hash-readings.ts';
import { grantOfV1, grantOfV2 } from './token-grant.ts';

export interface TokenAuthorizer {
  /**
   * `json` is the token's decoded JSON; `standard` whether the token text is standard base64, when
   * site-kit reads the JSON as it is rather than decoding the token again.
   */
  authorize(
    token: string,
    decoded: { json: Record<string, unknown>; standard: boolean },
    nowMs: number,
  ): Promise<Authorization>;
}

// site-kit's token error codes, as the emulator reports them. SITE_MISMATCH cannot occur: the
// verifier is chosen by the token's own site_id.
const CODES: Partial<Record<string, EmulatorErrorCode>> = {
  MALFORMED_TOKEN: 'MALFORMED_TOKEN',
  INVALID_FIELD: 'INVALID_TOKEN_FIELD',
  HASH_MISMATCH: 'HASH_MISMATCH',
  TOKEN_EXPIRED: 'TOKEN_EXPIRED',
  TOKEN_NOT_YET_VALID: 'TOKEN_NOT_YET_VALID',
  DECRYPT_FAILED: 'TOKEN_DECRYPT_FAILED',
  INVALID_POLICY: 'INVALID_POLICY',
};

const FIELD_OF: Partial<Record<EmulatorErrorCode, string>> = {
  TOKEN_EXPIRED: 'timestamp',
  TOKEN_NOT_YET_VALID: 'timestamp',
  HASH_MISMATCH: 'hash',
};

/**
 * Token mode: one site-kit verifier per configured site, made once, picked by the token's site_id.
 * The verifier is site-kit's async one, on node:crypto in Node and on Web Crypto in a browser page.
 */
export function createTokenAuthorizer(config: EmulatorConfig): TokenAuthorizer {
  const sites = new Map(config.sites.map((site) => [site.siteId, site]));
  const verifiers = new Map<string, AsyncTokenVerifier>(
    config.sites.map((site) => [
      site.siteId,
      createTokenVerifierAsync({
        siteId: site.siteId,
        siteKey: site.siteKey,
        accessKey: site.accessKey,
        hashEncoding: config.hashEncoding,
        validitySeconds: site.tokenValiditySeconds ?? config.tokenValiditySeconds,
        clockSkewSeconds: config.clockSkewSeconds,
      }),
    ]),
  );

  return {
    async authorize(token, { json, standard }, nowMs) {
      checkDrmType(json);
      // The token's JSON names its site: a token of a configured site goes straight to its verifier,
      // which reads the JSON decoded here rather than decoding the token again. A refusal is then
      // worked out again below, where every refusal gets its details (errors are the rare case; the
      // answer is the same).
      const named = json['site_id'];
      const verifier = typeof named === 'string' ? verifiers.get(named) : undefined;
      if (verifier !== undefined) {
        let verified: VerifiedLicenseToken | undefined;
        try {
          verified = await verifier.verify(token, standard ? { now: nowMs, json } : { now: nowMs });
        } catch {
          verified = undefined;
        }
        if (verified !== undefined) return authorizationOf(verified);
      }
      return authorizeSlowly(token, nowMs);
    },
  };

  /** The whole check, reading the token first, with the details of whatever refuses it. */
  async function authorizeSlowly(token: string, nowMs: number): Promise<Authorization> {
    const read = translate(() => readLicenseToken(token), undefined);
    const fields = read.fields;
    const verifier = verifiers.get(fields.site_id);
    const site = sites.get(fields.site_id);
    if (verifier === undefined || site === undefined) {
      throw new EmulatorError(
        'UNKNOWN_SITE',
        `The token is for site "${fields.site_id}", which is not in the emulator config: add it to "sites" with its site key and access key, or issue the token with a configured site ID.`,
        { siteId: fields.site_id, configuredSites: [...verifiers.keys()] },
        { field: 'site_id' },
      );
    }
    const about = { siteId: fields.site_id, cid: fields.cid, timestamp: fields.timestamp };
    let verified: VerifiedLicenseToken;
    try {
      verified = await translateAsync(() => verifier.verify(token, { now: nowMs }), about);
    } catch (error) {
      if (error instanceof EmulatorError && error.code === 'HASH_MISMATCH') {
        const data = read.version === 1 ? read.fields.token : read.fields.policy;
        const readings = await hashReadings(site.accessKey, {
          ...fields,
          drm_type: read.drmTypeAsSent,
          data,
        });
        const expected = read.version === 1 ? config.hashEncoding : 'raw-digest';
        throw new EmulatorError(
          'HASH_MISMATCH',
          error.message,
          {
            ...about,
            version: read.version,
            expectedReading: expected,
            matchedReading: readings,
          },
          { field: 'hash', cause: error },
        );
      }
      throw error;
    }
    return authorizationOf(verified);
  }
}

// Built once per license, member by member in the order they always had (no base object spread).
function authorizationOf(verified: VerifiedLicenseToken): Authorization {
  const v1 = verified.version === 1;
  return {
    mode: 'token',
    siteId: verified.siteId,
    userId: verified.userId,
    cid: verified.cid,
    drmType: verified.drmType,
    warnings: verified.warnings,
    grant: v1 ? grantOfV1(verified.policy) : grantOfV2(verified.policy, verified.keyRotation),
    responseFormat: v1 ? 'original' : verified.responseFormat,
  };
}

/**
 * A bad drm_type has its own code (7018); other invalid token JSON is 7013. Any case is read (the
 * service's own player samples send "widevine"); the verifier's warnings say so.
 */
function checkDrmType(json: Record<string, unknown>): void {
  const drmType = json['drm_type'];
  if (drmType === undefined || canonicalDrmType(drmType) !== undefined) return;
  throw new EmulatorError(
    'INVALID_DRM_TYPE',
    `The token's drm_type ${JSON.stringify(drmType)?.slice(0, 40)} is not one of ${DRM_TYPES.map((t) => `"${t}"`).join(', ')} (any case).`,
    undefined,
    { field: 'drm_type' },
  );
}

function translate<T>(run: () => T, detail: Record<string, unknown> | undefined): T {
  try {
    return run();
  } catch (error) {
    throw translated(error, detail);
  }
}

async function translateAsync<T>(
  run: () => Promise<T>,
  detail: Record<string, unknown> | undefined,
): Promise<T> {
  try {
    return await run();
  } catch (error) {
    throw translated(error, detail);
  }
}

/** site-kit's token errors as the emulator's; anything else unchanged. */
function translated(error: unknown, detail: Record<string, unknown> | undefined): unknown {
  if (!(error instanceof SiteKitError)) return error;
  const mapped = CODES[error.code];
  if (mapped === undefined) return error;
  const tokenField = error instanceof TokenError ? error.field : undefined;
  const code = tokenField === 'drm_type' ? 'INVALID_DRM_TYPE' : mapped;
  const field = tokenField ?? FIELD_OF[code] ?? policyPath(error.message);
  return new EmulatorError(code, error.message, detail, {
    cause: error,
    ...(field === undefined ? {} : { field }),
  });
}

/** The member path an INVALID_POLICY message names first ("policy.playback_policy.x: ..."). */
function policyPath(message: string): string | undefined {
  return /\b(policy(?:\.[\w[\]-]+)*):/.exec(message)?.[1];
}
