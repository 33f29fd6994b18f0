// Runs in every runtime of the table: the shared vectors through the async API of whichever build
// the runtime's export conditions load (node:crypto on Node, Bun and Deno; Web Crypto on workerd).
import { encryptAsync } from '@multidrm/site-kit';
import {
  createTokenIssuerAsync,
  verifyLicenseTokenAsync,
  type TokenPolicy,
} from '@multidrm/site-kit/token';
import v1 from '../../fixtures/vectors/license-service-vectors.json' with { type: 'json' };
import v2 from '../../fixtures/vectors/license-token-v2-vectors.json' with { type: 'json' };

export interface VectorReport {
  /** Ciphertexts of the AES vectors, in the file's order. */
  aes: string[];
  /** Tokens of the v1 vectors (hex-text then raw-digest for each), then of the v2 vectors. */
  tokens: string[];
  /** The policy text each v2 vector verifies to. */
  verified: string[];
}

export async function vectorReport(): Promise<VectorReport> {
  const aes = await Promise.all(v1.aes.map((v) => encryptAsync(v.plaintext, v.key)));
  const tokens: string[] = [];
  for (const v of v1.token) {
    for (const hashEncoding of ['hex-text', 'raw-digest'] as const) {
      const issuer = createTokenIssuerAsync({
        siteId: v.site_id,
        siteKey: v.site_key,
        accessKey: v.access_key,
        hashEncoding,
      });
      tokens.push(
        await issuer.issue({
          cid: v.cid,
          userId: v.user_id,
          drmType: v.drm_type as 'Widevine',
          policy: JSON.parse(v.token_data) as TokenPolicy,
          timestamp: v.timestamp,
        }),
      );
    }
  }
  const { common } = v2;
  const site = { siteId: common.site_id, siteKey: common.site_key, accessKey: common.access_key };
  const issuer = createTokenIssuerAsync(site);
  const verified: string[] = [];
  for (const v of v2.vectors) {
    tokens.push(
      await issuer.issue({
        cid: v.cid,
        userId: v.user_id,
        drmType: v.drm_type as 'Widevine',
        policy: JSON.parse(v.policy_plaintext) as TokenPolicy,
        timestamp: common.timestamp,
      }),
    );
    const result = await verifyLicenseTokenAsync(v.token, {
      ...site,
      now: Date.parse(common.timestamp),
    });
    verified.push(JSON.stringify(result.policy));
  }
  return { aes, tokens, verified };
}
