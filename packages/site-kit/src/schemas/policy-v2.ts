import * as z from 'zod/mini';
import { english } from './english.ts';
import { kindOf, mustBe } from './must-be.ts';
import { securityPolicyV2Schema, TRACK_TYPES, trackTypeSchema } from './security-policy-v2.ts';
import { timestampSchema } from './timestamp.ts';
import { flag, hex, obj, oneOf, seconds } from './values.ts';

// The v2 policy (plaintext of a v2 token's `policy`), members in the order the service's current
// token samples emit them: JSON.stringify of a parsed policy is the text they encrypt.

/** The v2 `playback_policy.allowed_track_types` values. */
export const ALLOWED_TRACK_TYPES = ['ALL', 'SD_ONLY', 'SD_HD', 'SD_UHD1', 'SD_UHD2'] as const;

/**
 * Validates a v2 `playback_policy`; durations are whole seconds and `max_stream_per_user` a whole
 * number, 0 for no limit (as in the DRMs' license policies, and as the emulator counts streams).
 */
export const playbackPolicyV2Schema = obj({
  persistent: z.optional(flag),
  license_duration: z.optional(seconds),
  expire_date: z.optional(timestampSchema),
  allowed_track_types: z.optional(oneOf(ALLOWED_TRACK_TYPES)),
  rental_duration: z.optional(seconds),
  playback_duration: z.optional(seconds),
  max_stream_per_user: z.optional(
    z
      .number({ error: mustBe('a whole number of streams') })
      .check(
        z.int('must be a whole number of streams'),
        z.nonnegative('must not be negative (0 is no limit)'),
      ),
  ),
  // The newest builder also takes a numeric string ("60"); it is written as the number.
  renewal_duration: z.optional(
    z.union(
      [
        seconds,
        z.pipe(
          z.string({ error: english }).check(z.regex(/^\d+$/, { error: english })),
          z.transform(Number),
        ),
      ],
      {
        error: mustBe('a whole number of seconds (or a string of digits)'),
      },
    ),
  ),
});
/** A v2 `playback_policy` as read back (`renewal_duration` always a number). */
export type PlaybackPolicyV2 = z.infer<typeof playbackPolicyV2Schema>;

const mpegCencKeySchema = obj({
  track_type: trackTypeSchema,
  key_id: hex(16),
  key: hex(16),
  iv: z.optional(hex(16)),
});

// key and iv are what HLS AES needs; key_id is optional to readers (the addendum requires key and
// iv only), and the issuer requires it (see hlsAesWithoutKeyId).
const hlsAesKeySchema = obj({
  track_type: trackTypeSchema,
  key: hex(16),
  iv: hex(16),
  key_id: z.optional(hex(16)),
});

const keyList = <T extends z.core.SomeType>(entry: T) =>
  z
    .array(entry, {
      error: mustBe('an array of key entries ([{"track_type":"ALL", ...}]); v1 used one object'),
    })
    // Readers and the issuer fold an empty list to "absent" first (see aliases-v2.ts).
    .check(z.minLength(1, 'must not be empty: leave the member out instead'));

/**
 * Validates a v2 `external_key`: per-track key lists (`mpeg_cenc`, `hls_aes`) and/or an `ncg` key,
 * hex strings; at least one of them.
 */
export const externalKeyV2Schema = obj({
  mpeg_cenc: z.optional(keyList(mpegCencKeySchema)),
  hls_aes: z.optional(keyList(hlsAesKeySchema)),
  ncg: z.optional(obj({ cek: hex(32), track_type: z.optional(oneOf(TRACK_TYPES)) })),
}).check(
  z.refine(
    (keys) => keys.mpeg_cenc !== undefined || keys.hls_aes !== undefined || keys.ncg !== undefined,
    'must hold at least one of mpeg_cenc, hls_aes, ncg (leave external_key out otherwise)',
  ),
);
/**
 * The paths of hls_aes keys without `key_id`: the addendum lists key_id in the entry but requires
 * only key and iv, and two of the service's three newest builders refuse a key without it. The
 * issuer refuses them; readers take them with a warning.
 */
export function hlsAesWithoutKeyId(externalKey: ExternalKeyV2 | undefined): string[] {
  const paths: string[] = [];
  externalKey?.hls_aes?.forEach((entry, i) => {
    if (entry.key_id === undefined) paths.push(`policy.external_key.hls_aes.${i}.key_id`);
  });
  return paths;
}

/** A v2 `external_key` as read back (each entry's `track_type` filled in). */
export type ExternalKeyV2 = z.infer<typeof externalKeyV2Schema>;

/**
 * Validates a v2 policy (plaintext of a v2 token's `policy`); `policy_version` must be 2. Parsing
 * fills in defaults, see {@link TokenPolicyV2}.
 */
export const tokenPolicyV2Schema = obj({
  policy_version: z.literal(2, {
    error: (issue) =>
      issue.input === undefined
        ? 'is required: a v2 policy starts with "policy_version": 2'
        : `must be 2, got ${typeof issue.input === 'number' ? issue.input : kindOf(issue.input)}`,
  }),
  playback_policy: z.optional(playbackPolicyV2Schema),
  security_policy: z.optional(securityPolicyV2Schema),
  external_key: z.optional(externalKeyV2Schema),
});

/** A v2 policy as read back (defaults filled in: `track_type`, `renewal_duration` as a number). */
export type TokenPolicyV2 = z.output<typeof tokenPolicyV2Schema>;
/** A v2 policy as a site writes it (`track_type` may be left out and means "ALL"). */
export type TokenPolicyV2Input = z.input<typeof tokenPolicyV2Schema>;

/** Rules that make a v2 policy pointless rather than unreadable: errors for a builder, warnings for a reader. */
export function playbackPolicyV2Conflicts(
  policy: PlaybackPolicyV2,
): { path: string; message: string }[] {
  const found: { path: string; message: string }[] = [];
  // 0 is "no rental limit" (one builder writes it by default with persistent false): nothing to apply.
  if (
    policy.rental_duration !== undefined &&
    policy.rental_duration > 0 &&
    policy.persistent !== true
  ) {
    found.push({
      path: 'rental_duration',
      message:
        'is an offline rental period and needs "persistent": true; set it, or use license_duration for streaming',
    });
  }
  return found;
}

/** Facts a reader reports but a builder allows (the service's samples allow them). */
export function playbackPolicyV2Notes(policy: PlaybackPolicyV2): string[] {
  return policy.license_duration !== undefined && policy.expire_date !== undefined
    ? [
        'playback_policy: license_duration and expire_date are both set; the service does not document which wins (v1: duration)',
      ]
    : [];
}
