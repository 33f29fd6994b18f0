import * as z from 'zod';
import { describeIssues } from '../schemas/issues.ts';
import { mustBe } from '../schemas/must-be.ts';
import { refusalSchema, tokenGrantSchema } from '../http/decision-schemas.ts';
import type { SiteRefusal } from '../http/site-endpoint.ts';
import type { TokenGrant } from '../http/token-handler.ts';
import { ProxyFailure } from './errors.ts';

// The token endpoint's decision shapes, one discriminated union so a broken one is named by `allow`.
const decisionSchema = z.discriminatedUnion('allow', [tokenGrantSchema, refusalSchema], {
  error: mustBe('{ allow: true, ... } or { allow: false, status, reason }'),
});

/** The site's decision, checked; a shape it breaks is the site's bug, answered as SITE_ERROR. */
export function readDecision(value: unknown): TokenGrant | SiteRefusal | string {
  const parsed = decisionSchema.safeParse(value);
  if (parsed.success) return parsed.data as TokenGrant | SiteRefusal;
  return `authorize answered a decision that breaks its shape: ${describeIssues(parsed.error, 'decision')}.`;
}

/** Runs `authorize` within its deadline; a throw or a timeout becomes a failure. */
export async function decideWithin<T>(decide: () => T | Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new ProxyFailure(
            'SITE_TIMEOUT',
            'The site could not decide in time; try again in a moment.',
          ),
        ),
      ms,
    );
  });
  try {
    return await Promise.race([Promise.resolve().then(decide), late]);
  } finally {
    clearTimeout(timer);
  }
}
