import * as z from 'zod/mini';
import { english } from '../schemas/english.ts';
import { mustBe } from '../schemas/must-be.ts';

// The shapes of a site's `authorize` decision, shared by the token endpoint and the license proxy
// so the two read the same decision the same way. The policy and its v2 options are checked by the
// issuer with the strict rules, so here they only have to be present or not.

/** `{ allow: true, userId?, policy?, responseFormat?, keyRotation? }`: a token grant. */
export const tokenGrantSchema = z.strictObject(
  {
    allow: z.literal(true, { error: english }),
    userId: z.optional(
      z.string({ error: mustBe('a string') }).check(z.minLength(1, 'must not be empty')),
    ),
    policy: z.optional(z.unknown()),
    responseFormat: z.optional(z.unknown()),
    keyRotation: z.optional(z.unknown()),
  },
  { error: english },
);

/** `{ allow: false, status: 401 | 403, reason }`: a refusal, the same for every endpoint. */
export const refusalSchema = z.strictObject(
  {
    allow: z.literal(false, { error: english }),
    status: z.union([z.literal(401, { error: english }), z.literal(403, { error: english })], {
      error: mustBe('401 or 403'),
    }),
    reason: z
      .string({ error: mustBe('a string') })
      .check(z.minLength(1, 'must not be empty (say why)')),
  },
  { error: english },
);
