import * as z from 'zod';
import { mustBe } from '../schemas/must-be.ts';
import {
  externalKeySchema,
  playbackPolicySchema,
  securityPolicySchema,
  type ExternalKey,
  type PlaybackPolicy,
  type SecurityPolicy,
} from '../schemas/policy.ts';
import { timestampSchema } from '../schemas/timestamp.ts';
import { SUCCESS_CODE } from './answer.ts';

/** Settings only the XML (old specification) answer has; ignored in a JSON answer. */
export interface XmlExtras {
  /** PC CGMS-A: -1 off (default), 0 copy freely, 1 copy no more, 2 copy once, 3 copy never. */
  cgms_a?: -1 | 0 | 1 | 2 | 3;
  /** PC APS: 0 off (default), 1 AGC only, 2 AGC + 2-line colour stripe, 3 AGC + 4-line stripe. */
  aps?: 0 | 1 | 2 | 3;
  /** PD_START when the period starts later than now; needs playback_policy.limit true. */
  pd_start?: string;
}

/** What the site's `authorize` answers, in the spec's field names. */
export type GatewayDecision =
  | {
      allow: true;
      playback_policy: PlaybackPolicy;
      security_policy?: SecurityPolicy;
      external_key?: ExternalKey;
      response_user_id?: string;
      xml?: XmlExtras;
    }
  | {
      allow: false;
      /** Digits, not "0000"; exactly 4 for an XML (old specification) request. */
      error_code: string;
      error_message: string;
    };

const xmlExtrasSchema = z.strictObject(
  {
    cgms_a: z
      .union([z.literal(-1), z.literal(0), z.literal(1), z.literal(2), z.literal(3)], {
        error: mustBe('-1 (off), 0, 1, 2 or 3'),
      })
      .optional(),
    aps: z
      .union([z.literal(0), z.literal(1), z.literal(2), z.literal(3)], {
        error: mustBe('0 (off), 1, 2 or 3'),
      })
      .optional(),
    pd_start: z.optional(timestampSchema),
  },
  { error: mustBe('an object') },
);

// The strict policy rules apply: an answer the site sends must not rely on the spec's precedence.
export const gatewayDecisionSchema = z.discriminatedUnion(
  'allow',
  [
    z.strictObject({
      allow: z.literal(true),
      playback_policy: playbackPolicySchema,
      security_policy: z.optional(securityPolicySchema),
      external_key: z.optional(externalKeySchema),
      response_user_id: z
        .string({ error: mustBe('a string') })
        .min(1, 'must not be empty (leave it out to keep the user ID)')
        .optional(),
      xml: xmlExtrasSchema.optional(),
    }),
    z.strictObject({
      allow: z.literal(false),
      // Any numeric code in JSON answers; buildAnswer demands 4 digits for the old XML type.
      error_code: z
        .string({ error: mustBe('a string of digits') })
        .regex(/^\d+$/, 'must be a numeric code defined by the site, such as "401" or "4031"')
        .refine((c) => c !== SUCCESS_CODE, 'must not be "0000", the success code'),
      error_message: z.string({ error: mustBe('a string') }).min(1, 'must not be empty (say why)'),
    }),
  ],
  { error: mustBe('an object with allow: true or allow: false') },
);
