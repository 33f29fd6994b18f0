import { SiteKitError } from '../errors.ts';
import { describeIssues } from '../schemas/issues.ts';
import { lenientTokenPolicySchema, type TokenPolicy } from '../schemas/policy.ts';
import {
  tokenPolicyV2Schema,
  type PlaybackPolicyV2,
  type TokenPolicyV2,
} from '../schemas/policy-v2.ts';
import type { SecurityPolicyV2Entry } from '../schemas/security-policy-v2.ts';

/** The result of {@link convertPolicyToV2}: the v2 policy and what did not carry over exactly. */
export interface PolicyConversion {
  policy: TokenPolicyV2;
  /** One line for every v1 rule that has no exact v2 counterpart, and what was done with it. */
  warnings: string[];
}

/**
 * Turns v1 token data into the v2 policy that means the same, as far as v2 can say it: a site moving
 * to today's token format runs its policies through this once and reads the warnings.
 */
export function convertPolicyToV2(v1: TokenPolicy): PolicyConversion {
  const parsed = lenientTokenPolicySchema.safeParse(v1 ?? {});
  if (!parsed.success) {
    throw new SiteKitError('INVALID_POLICY', describeIssues(parsed.error, 'policy'));
  }
  const warnings: string[] = [];
  const { playback_policy, security_policy, external_key } = parsed.data;
  const out: Record<string, unknown> = { policy_version: 2 };
  if (playback_policy !== undefined) out['playback_policy'] = playback(playback_policy, warnings);
  if (security_policy !== undefined) {
    const entry = security(security_policy, warnings);
    if (entry !== undefined) out['security_policy'] = [entry];
  }
  if (external_key !== undefined) {
    const keys = externalKey(external_key, warnings);
    if (keys !== undefined) out['external_key'] = keys;
  }
  // The v2 schema is the final word: what comes out is exactly what the issuer would write.
  return { policy: tokenPolicyV2Schema.parse(out), warnings };
}

function playback(
  v1: NonNullable<TokenPolicy['playback_policy']>,
  warnings: string[],
): PlaybackPolicyV2 {
  const out: PlaybackPolicyV2 = {};
  if (v1.persistent !== undefined) out.persistent = v1.persistent;
  const limited = v1.limit === true;
  if (v1.limit !== undefined) {
    warnings.push(
      'playback_policy.limit: v2 has no limit member; a duration or date limits the license, none means unlimited',
    );
  }
  if (v1.duration !== undefined) {
    if (limited) out.license_duration = v1.duration;
    else warnings.push('playback_policy.duration: dropped, v1 ignores it without "limit": true');
  }
  if (v1.expire_date !== undefined) {
    if (!limited) {
      warnings.push('playback_policy.expire_date: dropped, v1 ignores it without "limit": true');
    } else if (v1.duration !== undefined) {
      warnings.push('playback_policy.expire_date: dropped, v1 lets duration win over it');
    } else {
      out.expire_date = v1.expire_date;
    }
  }
  return out;
}

function security(
  v1: NonNullable<TokenPolicy['security_policy']>,
  warnings: string[],
): SecurityPolicyV2Entry | undefined {
  const entry: SecurityPolicyV2Entry = { track_type: 'ALL' };
  if (v1.hardware_drm === true) {
    entry.widevine = { security_level: 5 };
    warnings.push(
      'security_policy.hardware_drm: true became widevine.security_level 5 (hardware secure all); 4 (hardware secure decode) is the looser hardware level',
    );
  } else if (v1.hardware_drm === false) {
    warnings.push(
      'security_policy.hardware_drm: false has no v2 member (it is the default); left out',
    );
  }
  if (v1.playready_security_level !== undefined) {
    entry.playready = { security_level: v1.playready_security_level };
  }
  const ncg: NonNullable<SecurityPolicyV2Entry['ncg']> = {};
  if (v1.allow_mobile_abnormal_device !== undefined) {
    ncg.allow_mobile_abnormal_device = v1.allow_mobile_abnormal_device;
  }
  const output = v1.output_protect;
  if (output?.allow_external_display !== undefined) {
    ncg.allow_external_display = output.allow_external_display;
  }
  if (output?.control_hdcp !== undefined) {
    ncg.control_hdcp = output.control_hdcp;
    warnings.push(
      'security_policy.output_protect.control_hdcp: moved to ncg.control_hdcp only; set widevine.required_hdcp_version, playready protection levels and fairplay.hdcp_enforcement yourself if other DRMs need HDCP',
    );
  }
  if (Object.keys(ncg).length > 0) entry.ncg = ncg;
  return Object.keys(entry).length > 1 ? entry : undefined;
}

function externalKey(
  v1: NonNullable<TokenPolicy['external_key']>,
  warnings: string[],
): TokenPolicyV2['external_key'] {
  const out: NonNullable<TokenPolicyV2['external_key']> = {};
  const cenc = v1.mpeg_cenc;
  if (cenc !== undefined) {
    if (cenc.key_id !== undefined && cenc.key !== undefined) {
      out.mpeg_cenc = [
        {
          track_type: 'ALL',
          key_id: cenc.key_id,
          key: cenc.key,
          ...(cenc.iv === undefined ? {} : { iv: cenc.iv }),
        },
      ];
    } else {
      warnings.push(
        'external_key.mpeg_cenc: dropped, v2 needs both key_id and key; add them by hand',
      );
    }
  }
  if (v1.hls_aes !== undefined) {
    warnings.push(
      'external_key.hls_aes: dropped, a v2 entry needs key_id, key and iv and v1 has no key_id; add [{"track_type":"ALL","key":…,"iv":…,"key_id":…}] by hand',
    );
  }
  if (v1.ncg?.cek !== undefined) out.ncg = { cek: v1.ncg.cek };
  else if (v1.ncg !== undefined) warnings.push('external_key.ncg: dropped, it has no cek');
  return Object.keys(out).length > 0 ? out : undefined;
}
