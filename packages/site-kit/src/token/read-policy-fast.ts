import { isPlainObject, onlyKnown } from '../schemas/plain-object.ts';
import type { PlaybackPolicy, TokenPolicy } from '../schemas/policy.ts';
import {
  ALLOWED_TRACK_TYPES,
  type PlaybackPolicyV2,
  type TokenPolicyV2,
} from '../schemas/policy-v2.ts';
import { parseTimestamp } from '../schemas/timestamp.ts';

// The decrypted policies of the usual tokens, checked by hand: none, or a playback_policy of scalar
// members. The policy schemas' parse (with the v2 alias fold and the tolerant reading) cost a
// verified token as much as its JSON's. Anything else (security_policy, external_key, an alias, an
// unknown member, a wrong value) gives undefined and goes to the schema, which reads it or words the
// error. When it reads, the policy is the schema's, down to the order of the members
// (test/core/policy-read-fast.test.ts); the warnings are worked out from it as for the schema's.

const V1 = new Set(['playback_policy']);
const V2 = new Set(['policy_version', 'playback_policy']);
const PLAYBACK_V1 = new Set(['limit', 'persistent', 'duration', 'expire_date']);
const PLAYBACK_V2 = new Set([
  'persistent',
  'license_duration',
  'expire_date',
  'allowed_track_types',
  'rental_duration',
  'playback_duration',
  'max_stream_per_user',
  'renewal_duration',
]);
const DIGITS = /^\d+$/;

// zod's int() takes safe integers only.
const isSeconds = (value: unknown): value is number =>
  typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
const isTimestamp = (value: unknown): value is string =>
  typeof value === 'string' && parseTimestamp(value) !== undefined;
const isAllowedTrackTypes = (value: unknown): value is PlaybackPolicyV2['allowed_track_types'] =>
  typeof value === 'string' && (ALLOWED_TRACK_TYPES as readonly string[]).includes(value);

/** The v1 token data as lenientTokenPolicySchema reads it, or undefined when not sure. */
export function readPolicyV1Fast(json: unknown): TokenPolicy | undefined {
  if (!isPlainObject(json)) return undefined;
  const playback = json['playback_policy'];
  if (playback === undefined) return onlyKnown(json, 0, V1) ? {} : undefined;
  const read = playbackV1(playback);
  if (read === undefined || !onlyKnown(json, 1, V1)) return undefined;
  return { playback_policy: read };
}

// lenientPlaybackPolicySchema: the "applied only when" rules are the reader's warnings, not errors.
function playbackV1(value: unknown): PlaybackPolicy | undefined {
  if (!isPlainObject(value)) return undefined;
  const { limit, persistent, duration, expire_date: expireDate } = value;
  const read: PlaybackPolicy = {};
  let count = 0;
  if (limit !== undefined) {
    if (typeof limit !== 'boolean') return undefined;
    read.limit = limit;
    count++;
  }
  if (persistent !== undefined) {
    if (typeof persistent !== 'boolean') return undefined;
    read.persistent = persistent;
    count++;
  }
  if (duration !== undefined) {
    if (!isSeconds(duration)) return undefined;
    read.duration = duration;
    count++;
  }
  if (expireDate !== undefined) {
    if (!isTimestamp(expireDate)) return undefined;
    read.expire_date = expireDate;
    count++;
  }
  return onlyKnown(value, count, PLAYBACK_V1) ? read : undefined;
}

/**
 * The v2 policy as the alias fold and tokenPolicyV2Schema read it (it has none of the members the
 * fold reads), or undefined when not sure.
 */
export function readPolicyV2Fast(json: unknown): TokenPolicyV2 | undefined {
  if (!isPlainObject(json) || json['policy_version'] !== 2) return undefined;
  const playback = json['playback_policy'];
  if (playback === undefined) return onlyKnown(json, 1, V2) ? { policy_version: 2 } : undefined;
  const read = playbackV2(playback);
  if (read === undefined || !onlyKnown(json, 2, V2)) return undefined;
  return { policy_version: 2, playback_policy: read };
}

function playbackV2(value: unknown): PlaybackPolicyV2 | undefined {
  if (!isPlainObject(value)) return undefined;
  const read: PlaybackPolicyV2 = {};
  let count = 0;
  const { persistent, license_duration: license, expire_date: expireDate } = value;
  if (persistent !== undefined) {
    if (typeof persistent !== 'boolean') return undefined;
    read.persistent = persistent;
    count++;
  }
  if (license !== undefined) {
    if (!isSeconds(license)) return undefined;
    read.license_duration = license;
    count++;
  }
  if (expireDate !== undefined) {
    if (!isTimestamp(expireDate)) return undefined;
    read.expire_date = expireDate;
    count++;
  }
  const { allowed_track_types: tracks, rental_duration: rental } = value;
  if (tracks !== undefined) {
    if (!isAllowedTrackTypes(tracks)) return undefined;
    read.allowed_track_types = tracks;
    count++;
  }
  if (rental !== undefined) {
    if (!isSeconds(rental)) return undefined;
    read.rental_duration = rental;
    count++;
  }
  const { playback_duration: playback, max_stream_per_user: streams } = value;
  if (playback !== undefined) {
    if (!isSeconds(playback)) return undefined;
    read.playback_duration = playback;
    count++;
  }
  if (streams !== undefined) {
    if (!isSeconds(streams)) return undefined;
    read.max_stream_per_user = streams;
    count++;
  }
  const renewal = value['renewal_duration'];
  if (renewal !== undefined) {
    // The newest builder writes a string of digits; the schema reads it as the number.
    if (isSeconds(renewal)) read.renewal_duration = renewal;
    else if (typeof renewal === 'string' && DIGITS.test(renewal))
      read.renewal_duration = Number(renewal);
    else return undefined;
    count++;
  }
  return onlyKnown(value, count, PLAYBACK_V2) ? read : undefined;
}
