import {
  createTokenVerifier,
  decodeLicenseToken,
  SiteKitError,
  type ExternalKey,
  type TokenVerifier,
} from '@multidrm/site-kit';
import type { Authorization, Grant } from './authorization.ts';
import type { EmulatorConfig } from './config.ts';
import { EmulatorError, type EmulatorErrorCode } from './errors.ts';

export interface TokenAuthorizer {
  authorize(token: string, nowMs: number): Authorization;
}

// site-kit's token error codes, as the emulator reports them.
const CODES: Record<string, EmulatorErrorCode> = {
  MALFORMED_TOKEN: 'MALFORMED_TOKEN',
  INVALID_FIELD: 'INVALID_TOKEN_FIELD',
  HASH_MISMATCH: 'HASH_MISMATCH',
  TOKEN_EXPIRED: 'TOKEN_EXPIRED',
  TOKEN_NOT_YET_VALID: 'TOKEN_NOT_YET_VALID',
  DECRYPT_FAILED: 'DECRYPT_FAILED',
  INVALID_POLICY: 'INVALID_POLICY',
};
// SITE_MISMATCH cannot occur: the verifier is chosen by the token's own site_id.

/** Token mode: one site-kit verifier per configured site, made once, picked by the token's site_id. */
export function createTokenAuthorizer(config: EmulatorConfig): TokenAuthorizer {
  const verifiers = new Map<string, TokenVerifier>(
    config.sites.map((site) => [
      site.siteId,
      createTokenVerifier({
        siteId: site.siteId,
        siteKey: site.siteKey,
        accessKey: site.accessKey,
        hashEncoding: config.hashEncoding,
        validitySeconds: config.tokenValiditySeconds,
        clockSkewSeconds: config.clockSkewSeconds,
      }),
    ]),
  );

  return {
    authorize(token, nowMs) {
      const fields = translate(() => decodeLicenseToken(token), undefined);
      const verifier = verifiers.get(fields.site_id);
      if (verifier === undefined) {
        throw new EmulatorError(
          'UNKNOWN_SITE',
          `The token is for site "${fields.site_id}", which is not in the emulator config: add it to "sites" with its site key and access key, or issue the token with a configured site ID.`,
          { siteId: fields.site_id, configuredSites: [...verifiers.keys()] },
        );
      }
      const about = { siteId: fields.site_id, cid: fields.cid, timestamp: fields.timestamp };
      const verified = translate(() => verifier.verify(token, { now: nowMs }), about);
      const { playback_policy, security_policy, external_key } = verified.policy;
      const grant: Grant = { playback: { ...playback_policy } };
      if (security_policy !== undefined) grant.security = security_policy;
      const externalKey = mpegCencKey(external_key);
      if (externalKey !== undefined) grant.externalKey = externalKey;
      return {
        mode: 'token',
        siteId: verified.siteId,
        userId: verified.userId,
        cid: verified.cid,
        drmType: verified.drmType,
        grant,
        warnings: verified.warnings,
      };
    },
  };
}

function mpegCencKey(external: ExternalKey | undefined): Grant['externalKey'] {
  const cenc = external?.mpeg_cenc;
  if (cenc?.key === undefined) return undefined;
  return cenc.key_id === undefined
    ? { key: cenc.key.toLowerCase() }
    : { kid: cenc.key_id.toLowerCase(), key: cenc.key.toLowerCase() };
}

function translate<T>(run: () => T, detail: Record<string, unknown> | undefined): T {
  try {
    return run();
  } catch (error) {
    if (error instanceof SiteKitError) {
      const code = CODES[error.code];
      if (code !== undefined)
        throw new EmulatorError(code, error.message, detail, { cause: error });
    }
    throw error;
  }
}
