import type { ExternalKey, TokenPolicy, TokenPolicyV2 } from '@multidrm/site-kit';
import type { ExternalContentKey, Grant } from './authorization.ts';

/** A v1 token's data as a grant: one mpeg_cenc key at most, one security_policy object. */
export function grantOfV1(policy: TokenPolicy): Grant {
  const grant: Grant = { source: 'token-v1', playback: { ...policy.playback_policy } };
  if (policy.security_policy !== undefined) grant.security = policy.security_policy;
  const keys = mpegCencV1(policy.external_key);
  if (keys !== undefined) grant.externalKeys = keys;
  const unusable = unusableKeys(policy.external_key);
  if (unusable.length > 0) grant.unusableKeys = unusable;
  return grant;
}

/** A v2 policy as a grant: several mpeg_cenc keys with their track types, per-track security. */
export function grantOfV2(policy: TokenPolicyV2, keyRotation: boolean): Grant {
  const grant: Grant = { source: 'token-v2', playback: { ...policy.playback_policy } };
  if (policy.security_policy !== undefined) grant.security = policy.security_policy;
  const cenc = policy.external_key?.mpeg_cenc;
  if (cenc !== undefined) {
    grant.externalKeys = cenc.map((k) => ({
      kid: k.key_id.toLowerCase(),
      key: k.key.toLowerCase(),
      trackType: k.track_type,
    }));
  }
  const unusable = unusableKeys(policy.external_key);
  if (unusable.length > 0) grant.unusableKeys = unusable;
  if (keyRotation) grant.keyRotation = true;
  return grant;
}

/** v1 mpeg_cenc and the JSON gateway answer's: one object, key_id optional. */
export function mpegCencV1(external: ExternalKey | undefined): ExternalContentKey[] | undefined {
  const cenc = external?.mpeg_cenc;
  if (cenc?.key === undefined) return undefined;
  return [
    cenc.key_id === undefined
      ? { key: cenc.key.toLowerCase() }
      : { kid: cenc.key_id.toLowerCase(), key: cenc.key.toLowerCase() },
  ];
}

function unusableKeys(external: { hls_aes?: unknown; ncg?: unknown } | undefined): string[] {
  const found: string[] = [];
  if (external?.hls_aes !== undefined) found.push('external_key.hls_aes');
  if (external?.ncg !== undefined) found.push('external_key.ncg');
  return found;
}
