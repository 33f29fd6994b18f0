import * as z from 'zod';
import { mustBe } from '../schemas/must-be.ts';

// The shapes of a site's `authorize` decision, shared by the token endpoint and the license proxy
// so the two read the same decision the same way. The policy and its v2 options are checked by the
// issuer with the strict rules, so here they only have to be present or not.

/** `{ allow: true, userId?, policy?, responseFormat?, keyRotation? }`: a token grant. */
export const tokenGrantSchema = z.strictObject({
  allow: z.literal(true),
  userId: z
    .string({ error: mustBe('a string') })
    .min(1, 'must not be empty')
    .optional(),
  policy: z.unknown().optional(),
  responseFormat: z.unknown().optional(),
  keyRotation: z.unknown().optional(),
});

/** `{ allow: false, status: 401 | 403, reason }`: a refusal, the same for every endpoint. */
export const refusalSchema = z.strictObject({
  allow: z.literal(false),
  status: z.union([z.literal(401), z.literal(403)], { error: mustBe('401 or 403') }),
  reason: z.string({ error: mustBe('a string') }).min(1, 'must not be empty (say why)'),
});
