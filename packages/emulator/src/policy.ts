import { formatTimestamp, parseTimestamp } from '@multidrm/site-kit';
import type { Grant } from './authorization.ts';
import { EmulatorError } from './errors.ts';
import { notEnforced } from './not-enforced.ts';

/**
 * The policy the license is issued under: in header `x-drm-license-policy`, in the event
 * `license-issued` and, for the json response format, in the answer.
 */
export interface EffectivePolicy {
  /** v1 tokens and gateway answers only (v2 has no limit: a duration or date says it). */
  limit?: boolean;
  persistent: boolean;
  /** v1 / JSON gateway: seconds the license is valid; only when limit is true. */
  duration?: number;
  /** v2: seconds the license is valid. */
  license_duration?: number;
  /** v1 / gateway: only when limit is true and no duration is set (duration wins). */
  expire_date?: string;
  /** Gateway XML PD_START; only when LIMIT is Y. */
  start_date?: string;
  rental_duration?: number;
  playback_duration?: number;
  max_stream_per_user?: number;
  renewal_duration?: number;
  allowed_track_types?: string;
  security_policy?: unknown;
  output_control?: { HDCP: number; 'CGMS-A': number; APS: number };
  /** Members the site set that the spec's precedence rules leave out, with the reason. */
  ignored?: string[];
  /** What the site asked for that a ClearKey license cannot carry or enforce, one sentence each. */
  not_enforced?: string[];
}

/**
 * v1 and gateway answers: duration and expire_date count only when limit is true, and duration wins
 * (the spec). v2 has no limit; its dates and durations all count, and each is enforced on its own.
 */
export function effectivePolicy(grant: Grant): EffectivePolicy {
  const p = grant.playback;
  const policy: EffectivePolicy = { persistent: p.persistent ?? false };
  const ignored: string[] = [];
  if (grant.source === 'token-v2') {
    const { license_duration, expire_date, rental_duration, playback_duration } = p;
    Object.assign(
      policy,
      defined({ license_duration, expire_date, rental_duration, playback_duration }),
      defined({
        max_stream_per_user: p.max_stream_per_user,
        renewal_duration: p.renewal_duration,
        allowed_track_types: p.allowed_track_types,
      }),
    );
  } else {
    const limit = p.limit ?? false;
    policy.limit = limit;
    if (!limit) {
      if (p.duration !== undefined) ignored.push('duration: applied only when limit is true');
      if (p.expire_date !== undefined) ignored.push('expire_date: applied only when limit is true');
      if (p.start_date !== undefined) ignored.push('start_date: applied only when limit is true');
    } else {
      if (p.duration !== undefined) policy.duration = p.duration;
      if (p.expire_date !== undefined) {
        if (p.duration === undefined) policy.expire_date = p.expire_date;
        else ignored.push('expire_date: duration is set, and duration wins');
      }
      if (p.start_date !== undefined) policy.start_date = p.start_date;
    }
  }
  if (grant.security !== undefined) policy.security_policy = grant.security;
  if (grant.outputControl !== undefined) policy.output_control = grant.outputControl;
  if (ignored.length > 0) policy.ignored = ignored;
  const unenforced = notEnforced(grant);
  if (unenforced.length > 0) policy.not_enforced = unenforced;
  return policy;
}

/** The seconds a license is valid for, whichever version named them. */
export function licenseDuration(policy: EffectivePolicy): number | undefined {
  return policy.duration ?? policy.license_duration;
}

/**
 * ClearKey licenses carry no expiry, so the emulator enforces the dates itself: a license whose
 * period is over, or has not begun, is refused instead of issued.
 */
export function checkPolicyWindow(policy: EffectivePolicy, nowMs: number): void {
  if (policy.expire_date !== undefined) {
    const endMs = parseTimestamp(policy.expire_date);
    if (endMs !== undefined && endMs < nowMs) {
      throw new EmulatorError(
        'LICENSE_EXPIRED',
        `The license period ended ${Math.ceil((nowMs - endMs) / 1000)} s ago (expire_date ${policy.expire_date}, now ${formatTimestamp(nowMs)}): the site must grant a later expire_date or a duration.`,
        { over: 'expire_date', expire_date: policy.expire_date, now: formatTimestamp(nowMs) },
        { field: 'playback_policy.expire_date' },
      );
    }
  }
  if (policy.start_date !== undefined) {
    const startMs = parseTimestamp(policy.start_date);
    if (startMs !== undefined && startMs > nowMs) {
      throw new EmulatorError(
        'LICENSE_NOT_YET_VALID',
        `The license period starts in ${Math.ceil((startMs - nowMs) / 1000)} s (PD_START ${policy.start_date}, now ${formatTimestamp(nowMs)}): playback may not begin before it.`,
        { start_date: policy.start_date, now: formatTimestamp(nowMs) },
        { field: 'PD_START' },
      );
    }
  }
}

function defined<T extends Record<string, unknown>>(values: T): Partial<T> {
  return Object.fromEntries(
    Object.entries(values).filter(([, v]) => v !== undefined),
  ) as Partial<T>;
}
