import * as z from 'zod/mini';
import { mustBe } from './must-be.ts';
import { isBase64 } from '../encoding/base64.ts';
import { drmTypeSchema } from './drm-type.ts';
import { timestampSchema } from './timestamp.ts';
import { RESPONSE_FORMATS } from './response-format.ts';

const text = (what: string) =>
  z
    .string({ error: mustBe(`a string (${what})`) })
    .check(z.minLength(1, `must not be empty (${what})`));

const base64 = (what: string) =>
  z
    .string({ error: mustBe(`a base64 string (${what})`) })
    .check(
      z.minLength(1, `must not be empty (${what})`),
      z.refine(isBase64, `must be standard padded base64 (${what})`),
    );

/** The v1 token JSON (the main spec's) as the license service receives it, after the outer base64. */
export const licenseTokenV1Schema = z.strictObject(
  {
    drm_type: z.optional(drmTypeSchema),
    site_id: text('the site ID from the administration site'),
    user_id: text('the user ID, or "LICENSETOKEN" when there is none'),
    cid: text('the content ID used in packaging'),
    token: base64('base64 of the encrypted token data'),
    timestamp: timestampSchema,
    hash: base64('base64 of the integrity hash'),
  },
  { error: mustBe('a JSON object') },
);
/** The v1 token JSON; see {@link licenseTokenV1Schema}. */
export type LicenseTokenV1 = z.infer<typeof licenseTokenV1Schema>;

export { RESPONSE_FORMATS, type ResponseFormat } from './response-format.ts';

/**
 * The v2 token JSON, members in the order a writer emits them. `response_format` and `key_rotation`
 * are outside the hash: anyone on the way can change them unnoticed.
 */
export const licenseTokenV2Schema = z.strictObject(
  {
    drm_type: z.optional(drmTypeSchema),
    site_id: text('the site ID from the administration site'),
    user_id: text('the user ID, or "LICENSETOKEN" when there is none'),
    cid: text('the content ID used in packaging'),
    policy: base64('base64 of the encrypted v2 policy'),
    response_format: z.optional(
      z.enum(RESPONSE_FORMATS, { error: mustBe('one of "original", "json", "custom"') }),
    ),
    key_rotation: z.optional(z.boolean({ error: mustBe('true or false') })),
    timestamp: timestampSchema,
    hash: base64('base64 of the integrity hash'),
  },
  { error: mustBe('a JSON object') },
);
/** The v2 token JSON; see {@link licenseTokenV2Schema}. */
export type LicenseTokenV2 = z.infer<typeof licenseTokenV2Schema>;

/** Either token version's JSON; v2 has `policy` where v1 has `token`. */
export type LicenseToken = LicenseTokenV1 | LicenseTokenV2;
