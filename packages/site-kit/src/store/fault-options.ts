import * as z from 'zod';
import { mustBe } from '../schemas/must-be.ts';

/** The options of a store's faults, as every limiter over a store takes them. */
export const faultOptions = {
  deadlineMs: z
    .number({ error: mustBe('a number of milliseconds') })
    .int('must be a whole number')
    .min(1, 'must be 1 or more')
    .max(60_000, 'must be 60000 or less')
    .optional(),
  onOutage: z.enum(['allow', 'refuse'], { error: mustBe('"allow" or "refuse"') }).optional(),
};
