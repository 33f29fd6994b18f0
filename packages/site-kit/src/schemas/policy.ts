import * as z from 'zod/mini';
import { mustBe } from './must-be.ts';
import { timestampSchema } from './timestamp.ts';
import { flag, hex, obj, seconds } from './values.ts';

// Member order in these shapes is the order of the spec's tables. zod writes parsed objects in shape
// order and leaves out absent members, so JSON.stringify of a parsed policy is the canonical token data.

const playbackPolicyShape = obj({
  limit: z.optional(flag),
  persistent: z.optional(flag),
  duration: z.optional(seconds),
  expire_date: z.optional(timestampSchema),
});

/** Rules the spec states as "applied only when": errors for a builder, warnings for a verifier. */
export function playbackPolicyConflicts(
  policy: z.infer<typeof playbackPolicyShape>,
): { path: string; message: string }[] {
  const found: { path: string; message: string }[] = [];
  const limited = policy.limit === true;
  if (policy.duration !== undefined && !limited) {
    found.push({
      path: 'duration',
      message: 'is applied only when limit is true; set "limit": true or remove duration',
    });
  }
  if (policy.expire_date !== undefined && !limited) {
    found.push({
      path: 'expire_date',
      message: 'is applied only when limit is true; set "limit": true or remove expire_date',
    });
  }
  if (policy.duration !== undefined && policy.expire_date !== undefined) {
    found.push({
      path: 'expire_date',
      message: 'must not be used together with duration (duration wins); keep only one',
    });
  }
  return found;
}

export const lenientPlaybackPolicySchema = playbackPolicyShape;

/**
 * Validates a v1 `playback_policy`, including the "applied only when" rules (`duration` and
 * `expire_date` need `limit: true` and exclude each other).
 */
export const playbackPolicySchema = playbackPolicyShape.check(
  z.superRefine((policy: z.infer<typeof playbackPolicyShape>, ctx) => {
    for (const { path, message } of playbackPolicyConflicts(policy)) {
      ctx.addIssue({ code: 'custom', path: [path], message, input: policy });
    }
  }),
);
/**
 * A v1 `playback_policy`: `limit`, `persistent`, `duration` (seconds), `expire_date` (spec time).
 */
export type PlaybackPolicy = z.infer<typeof playbackPolicySchema>;

/**
 * Validates a v1 `security_policy.output_protect`: `allow_external_display`, `control_hdcp` (0
 * none, 1 HDCP 1.4, 2 HDCP 2.2).
 */
export const outputProtectSchema = obj({
  allow_external_display: z.optional(flag),
  control_hdcp: z.optional(
    z.literal([0, 1, 2], { error: mustBe('0 (no HDCP), 1 (HDCP 1.4) or 2 (HDCP 2.2)') }),
  ),
});

/**
 * The spec's defaults for what a policy leaves out, in one place: what the license service applies,
 * what the emulator reports, what the XML answer writes. Nothing injects them into a token or answer.
 */
export const PLAYBACK_POLICY_DEFAULTS = { limit: false, persistent: false } as const;
/**
 * The spec's defaults for the `security_policy` members a v1 policy leaves out; like
 * {@link PLAYBACK_POLICY_DEFAULTS}, reported but never injected.
 */
export const SECURITY_POLICY_DEFAULTS = {
  hardware_drm: false,
  allow_mobile_abnormal_device: false,
  playready_security_level: 150,
  output_protect: { allow_external_display: false, control_hdcp: 0 },
} as const;

/** Validates a v1 `security_policy`; `playready_security_level` is 150 or 2000. */
export const securityPolicySchema = obj({
  hardware_drm: z.optional(flag),
  output_protect: z.optional(outputProtectSchema),
  allow_mobile_abnormal_device: z.optional(flag),
  playready_security_level: z.optional(z.literal([150, 2000], { error: mustBe('150 or 2000') })),
});
/** A v1 `security_policy`; absent members mean {@link SECURITY_POLICY_DEFAULTS}. */
export type SecurityPolicy = z.infer<typeof securityPolicySchema>;

/**
 * Validates a v1 `external_key`: keys the site supplies instead of the service's, as hex (16 bytes;
 * 32 for the NCG `cek`).
 */
export const externalKeySchema = obj({
  mpeg_cenc: z.optional(
    obj({
      key_id: z.optional(hex(16)),
      key: z.optional(hex(16)),
      iv: z.optional(hex(16)),
    }),
  ),
  hls_aes: z.optional(obj({ key: z.optional(hex(16)), iv: z.optional(hex(16)) })),
  ncg: z.optional(obj({ cek: z.optional(hex(32)) })),
});
/** A v1 `external_key`: one object per scheme (`mpeg_cenc`, `hls_aes`, `ncg`), hex strings. */
export type ExternalKey = z.infer<typeof externalKeySchema>;

/** The token data: the plaintext of the token's `token` field. */
export const tokenPolicySchema = obj({
  playback_policy: z.optional(playbackPolicySchema),
  security_policy: z.optional(securityPolicySchema),
  external_key: z.optional(externalKeySchema),
});
/**
 * The v1 token data (plaintext of the token's `token` field), as {@link tokenPolicySchema} reads
 * it.
 */
export type TokenPolicy = z.infer<typeof tokenPolicySchema>;

/** The same rules less the "applied only when" ones, which a license service applies by precedence. */
export const lenientTokenPolicySchema = obj({
  playback_policy: z.optional(lenientPlaybackPolicySchema),
  security_policy: z.optional(securityPolicySchema),
  external_key: z.optional(externalKeySchema),
});
