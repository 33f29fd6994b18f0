import { z } from 'zod';
import { mustBe } from './must-be.ts';
import { isBase64 } from '../crypto/base64.ts';
import { drmTypeSchema } from './drm-type.ts';
import { timestampSchema } from './timestamp.ts';

const text = (what: string) =>
  z.string({ error: mustBe(`a string (${what})`) }).min(1, `must not be empty (${what})`);

const base64 = (what: string) =>
  z
    .string({ error: mustBe(`a base64 string (${what})`) })
    .min(1, `must not be empty (${what})`)
    .refine(isBase64, `must be standard padded base64 (${what})`);

/** The token JSON as the license service receives it, after the outer base64 is removed. */
export const licenseTokenSchema = z.strictObject(
  {
    drm_type: drmTypeSchema.optional(),
    site_id: text('the site ID from the administration site'),
    user_id: text('the user ID, or "LICENSETOKEN" when there is none'),
    cid: text('the content ID used in packaging'),
    token: base64('base64 of the encrypted token data'),
    timestamp: timestampSchema,
    hash: base64('base64 of the integrity hash'),
  },
  { error: mustBe('a JSON object') },
);
export type LicenseToken = z.infer<typeof licenseTokenSchema>;
