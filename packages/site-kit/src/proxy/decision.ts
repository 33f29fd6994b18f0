import * as z from 'zod';
import { describeIssues } from '../schemas/issues.ts';
import { mustBe } from '../schemas/must-be.ts';
import type { SiteRefusal } from '../http/site-endpoint.ts';
import type { TokenGrant } from '../http/token-handler.ts';
import { ProxyFailure } from './errors.ts';

// The same decision shapes as the token endpoint's: the policy and its v2 options are checked by
// the issuer's strict rules, so here they only have to be present or not.
const decisionSchema = z.discriminatedUnion(
  'allow',
  [
    z.strictObject({
      allow: z.literal(true),
      userId: z
        .string({ error: mustBe('a string') })
        .min(1, 'must not be empty')
        .optional(),
      policy: z.unknown().optional(),
      responseFormat: z.unknown().optional(),
      keyRotation: z.unknown().optional(),
    }),
    z.strictObject({
      allow: z.literal(false),
      status: z.union([z.literal(401), z.literal(403)], { error: mustBe('401 or 403') }),
      reason: z.string({ error: mustBe('a string') }).min(1, 'must not be empty (say why)'),
    }),
  ],
  { error: mustBe('{ allow: true, ... } or { allow: false, status, reason }') },
);

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
