import { z } from 'zod';
import { REFUSAL_REASONS, type RefusalReason } from '../errors.ts';

/**
 * The faults the emulator injects on purpose, as data: one vocabulary for unit tests (the msw kit),
 * the CLI's config file and the demo's menu. Each fault answers what the license service (or what
 * stands in front of it) answers in that situation, through the same refusal path as a real
 * decision; `times` makes it apply to the first N requests it fits and then stop ("refuse the first
 * N, then accept").
 */
export const FAULT_NAMES = [
  'token-expired',
  'wrong-hash',
  'unknown-site',
  'gateway-refusal',
  'gateway-timeout',
  'slow',
  'http-error',
  'stream-limit',
  'renewal-refused',
  'refuse',
] as const;
/** One of {@link FAULT_NAMES}: the `fault` member of a {@link Fault}. */
export type FaultName = (typeof FAULT_NAMES)[number];

const times = z
  .number({ error: 'must be a whole number of requests' })
  .int('must be a whole number of requests')
  .positive('must be 1 or more (leave it out to apply to every request)')
  .optional();

const fault = <N extends FaultName, S extends z.core.$ZodLooseShape>(name: N, shape: S) =>
  z.strictObject({ fault: z.literal(name), times, ...shape });

/**
 * Validates one fault, by its `fault` name, with `times` (apply to the first N matching requests;
 * absent: every one) and the fault's own options.
 */
export const faultSchema = z.discriminatedUnion(
  'fault',
  [
    fault('token-expired', {}),
    fault('wrong-hash', {}),
    fault('unknown-site', {}),
    fault('gateway-refusal', {
      /** The site's own error code, as its gateway would answer it (any digits, "0000" excepted). */
      siteCode: z
        .string({ error: 'must be a string of digits' })
        .regex(/^\d{1,9}$/, 'must be a string of 1 to 9 digits')
        .refine((code) => code !== '0000', 'must not be "0000", which allows')
        .default('4031'),
      /** The site's own text. */
      message: z.string({ error: 'must be a string' }).max(200).default('Refused by the site'),
    }),
    fault('gateway-timeout', {}),
    fault('slow', {
      ms: z
        .number({ error: 'must be a number of milliseconds' })
        .int('must be a whole number of milliseconds')
        .nonnegative('must not be negative')
        .max(120_000, 'must be at most 120000 (two minutes)'),
    }),
    fault('http-error', {
      status: z
        .number({ error: 'must be an HTTP status from 500 to 599' })
        .int('must be an HTTP status from 500 to 599')
        .min(500, 'must be an HTTP status from 500 to 599')
        .max(599, 'must be an HTTP status from 500 to 599')
        .default(503),
    }),
    fault('stream-limit', {}),
    fault('renewal-refused', {}),
    fault('refuse', {
      reason: z.enum(REFUSAL_REASONS as [RefusalReason, ...RefusalReason[]], {
        error: `must be one of the refusal reasons: ${REFUSAL_REASONS.join(', ')}`,
      }),
    }),
  ],
  {
    error: (issue) =>
      issue.input !== null && typeof issue.input === 'object'
        ? `must be one of ${FAULT_NAMES.join(', ')}`
        : `must be an object {"fault": <one of ${FAULT_NAMES.join(', ')}>, ...}`,
  },
);

/** A fault as written in a config file or a test. */
export type FaultInput = z.input<typeof faultSchema>;
/** A fault with its defaults applied. */
export type Fault = z.output<typeof faultSchema>;
