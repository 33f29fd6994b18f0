import { formatTimestamp, parseTimestamp, type SecurityPolicy } from '@multidrm/site-kit';
import type { Grant } from './authorization.ts';
import { EmulatorError } from './errors.ts';

/** The policy the license is issued under, sent as JSON in header `x-drm-license-policy`. */
export interface EffectivePolicy {
  limit: boolean;
  persistent: boolean;
  /** Seconds of playback; only when limit is true. */
  duration?: number;
  /** Only when limit is true and no duration is set (duration wins, as the spec says). */
  expire_date?: string;
  /** Gateway XML PD_START; only when limit is true. */
  start_date?: string;
  security_policy?: SecurityPolicy;
  output_control?: { HDCP: number; 'CGMS-A': number; APS: number };
  /** Fields the site set that the spec's precedence rules leave out, with the reason. */
  ignored?: string[];
}

/** Applies the spec's precedence: duration and expire_date count only when limit is true, and duration wins. */
export function effectivePolicy(grant: Grant): EffectivePolicy {
  const { limit = false, persistent = false, duration, expire_date, start_date } = grant.playback;
  const policy: EffectivePolicy = { limit, persistent };
  const ignored: string[] = [];
  const timed = { duration, expire_date, start_date };
  if (!limit) {
    for (const [name, value] of Object.entries(timed)) {
      if (value !== undefined) ignored.push(`${name}: applied only when limit is true`);
    }
  } else {
    if (duration !== undefined) policy.duration = duration;
    if (expire_date !== undefined) {
      if (duration === undefined) policy.expire_date = expire_date;
      else ignored.push('expire_date: duration is set, and duration wins');
    }
    if (start_date !== undefined) policy.start_date = start_date;
  }
  if (grant.security !== undefined) policy.security_policy = grant.security;
  if (grant.outputControl !== undefined) policy.output_control = grant.outputControl;
  if (ignored.length > 0) policy.ignored = ignored;
  return policy;
}

/**
 * ClearKey licenses carry no expiry, so the emulator enforces the time window itself: a license
 * whose period is over, or has not begun, is refused instead of issued.
 */
export function checkPolicyWindow(policy: EffectivePolicy, nowMs: number): void {
  if (policy.expire_date !== undefined) {
    const endMs = parseTimestamp(policy.expire_date);
    if (endMs !== undefined && endMs < nowMs) {
      throw new EmulatorError(
        'LICENSE_EXPIRED',
        `The license period ended ${Math.ceil((nowMs - endMs) / 1000)} s ago (expire_date ${policy.expire_date}, now ${formatTimestamp(nowMs)}): the site must grant a later expire_date or a duration.`,
        { expire_date: policy.expire_date, now: formatTimestamp(nowMs) },
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
      );
    }
  }
}
