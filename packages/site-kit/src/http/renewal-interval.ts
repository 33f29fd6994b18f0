import { SiteKitError } from '../errors.ts';
import type { AnyTokenPolicy } from '../token/issue-rules.ts';

/**
 * The token endpoint's answer header that tells the player how often to renew its licenses, in whole
 * seconds: the operator's interval lives in one place, the site, and the player reads it with the
 * token. Exposed through CORS so that a player on another origin can read it.
 */
export const RENEWAL_INTERVAL_HEADER = 'x-renewal-interval';

/** The longest interval the header carries: a year; beyond it a renewal is no renewal. */
const MAX_RENEWAL_INTERVAL_SECONDS = 365 * 24 * 3600;

/** Checks the handler's `renewalIntervalSeconds` once, when the handler is made. */
export function checkRenewalInterval(value: unknown): number | undefined {
  if (value === undefined) return undefined;
  if (
    typeof value !== 'number' ||
    !Number.isInteger(value) ||
    value < 1 ||
    value > MAX_RENEWAL_INTERVAL_SECONDS
  ) {
    throw new SiteKitError(
      'INVALID_INPUT',
      `renewalIntervalSeconds: must be a whole number of seconds from 1 to ${MAX_RENEWAL_INTERVAL_SECONDS}.`,
    );
  }
  return value;
}

/**
 * The interval of an issued token: the v2 policy's `playback_policy.renewal_duration` (a number, or
 * the string of digits the newest builders take), which is what the service counts the stream by,
 * else the handler's default. undefined: no renewal to announce. The policy was checked by the issuer.
 */
export function renewalIntervalOf(
  policy: AnyTokenPolicy | undefined,
  fallback: number | undefined,
): number | undefined {
  if (policy !== undefined && 'policy_version' in policy) {
    const value = Number(policy.playback_policy?.renewal_duration);
    if (Number.isInteger(value) && value > 0) return value;
  }
  return fallback;
}
