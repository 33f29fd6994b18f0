import * as z from 'zod';
import { describeIssues } from '../schemas/issues.ts';
import { mustBe } from '../schemas/must-be.ts';
import { withDeadline, type Deadlined } from '../http/deadline.ts';
import { refusalSchema, tokenGrantSchema } from '../http/decision-schemas.ts';
import { readRefusal, type SiteRefusal } from '../http/site-endpoint.ts';
import { readGrant, type TokenGrant } from '../http/token-handler.ts';
import { ProxyFailure } from './errors.ts';

// The token endpoint's decision shapes, one discriminated union so a broken one is named by `allow`.
const decisionSchema = z.discriminatedUnion('allow', [tokenGrantSchema, refusalSchema], {
  error: mustBe('{ allow: true, ... } or { allow: false, status, reason }'),
});

/**
 * The site's decision, checked; a shape it breaks is the site's bug, answered as SITE_ERROR. A
 * plain, well-formed grant or refusal is read by hand, as the token endpoint reads it (readGrant,
 * readRefusal); anything else goes to the schema, which also words what is wrong.
 */
export function readDecision(value: unknown): TokenGrant | SiteRefusal | string {
  return readGrant(value) ?? readRefusal(value) ?? readDecisionBySchema(value);
}

/** The schema's reading alone, which readDecision's hand reading must agree with (tests). */
export function readDecisionBySchema(value: unknown): TokenGrant | SiteRefusal | string {
  const parsed = decisionSchema.safeParse(value);
  if (parsed.success) return parsed.data as TokenGrant | SiteRefusal;
  return `authorize answered a decision that breaks its shape: ${describeIssues(parsed.error, 'decision')}.`;
}

/**
 * Runs `authorize` within its deadline (the token endpoint's withDeadline); a throw or a timeout
 * becomes a failure. A decision given at once (most sites decide from a session they hold) is
 * returned at once, with no timer, race or promise; a promise (or any thenable) races the deadline
 * and its late result is dropped.
 */
export function decideWithin<T>(decide: () => T | PromiseLike<T>, ms: number): T | Promise<T> {
  // Called here rather than by withDeadline, which would make a context (and its getter) the proxy
  // never passes to authorize; a throw goes up as it is, as settle would throw it.
  const decided = decide();
  if (!isThenable(decided)) return decided;
  return (withDeadline(ms, () => decided) as Promise<Deadlined<T>>).then(settle);
}

function isThenable<T>(value: T | PromiseLike<T>): value is PromiseLike<T> {
  return (
    (typeof value === 'object' || typeof value === 'function') &&
    value !== null &&
    typeof (value as { then?: unknown }).then === 'function'
  );
}

function settle<T>(outcome: Deadlined<T>): T {
  if (outcome.ok) return outcome.value;
  if (outcome.timedOut)
    throw new ProxyFailure(
      'SITE_TIMEOUT',
      'The site could not decide in time; try again in a moment.',
    );
  throw outcome.error;
}
