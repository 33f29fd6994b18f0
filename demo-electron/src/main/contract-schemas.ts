import { faultSchema } from '@multidrm/emulator';
import { describeIssues, timestampSchema } from '@multidrm/site-kit';
import { z } from 'zod';
import {
  MODES,
  PLAYERS,
  TIME_RULES,
  type DemoCall,
  type DemoError,
  type PlayRequest,
  type RealServiceInput,
} from '../shared/contract.ts';

// Main trusts nothing the renderer sends: every argument is parsed here before it is used.

const flag = z.boolean({ error: 'must be true or false' });
const text = (max: number) =>
  z.string({ error: 'must be a string' }).max(max, `must be at most ${max} characters`);

const policySchema = z.strictObject(
  {
    limit: flag,
    timeRule: z.enum(TIME_RULES, { error: `must be one of ${TIME_RULES.join(', ')}` }),
    durationSeconds: z
      .number({ error: 'must be a number of seconds' })
      .int('must be a whole number of seconds')
      .min(0, 'must not be negative')
      .max(10 * 365 * 24 * 3600, 'must be at most ten years')
      .optional(),
    expireDate: z.optional(timestampSchema),
    persistent: flag,
    hdcp: z.union([z.literal(0), z.literal(1), z.literal(2), z.null()], {
      error: 'must be 0, 1, 2 or null',
    }),
    securityLevel: z.union([z.literal(150), z.literal(2000), z.null()], {
      error: 'must be 150, 2000 or null',
    }),
    externalKey: flag,
  },
  { error: 'must be an object' },
);

const playRequestSchema = z.strictObject({
  mode: z.enum(MODES, { error: `must be one of ${MODES.join(', ')}` }),
  player: z.enum(PLAYERS, { error: `must be one of ${PLAYERS.join(', ')}` }),
  userId: z
    .string({ error: 'must be a string (the user id)' })
    .trim()
    .min(1, 'must not be empty')
    .max(64, 'must be at most 64 characters')
    .regex(/^[A-Za-z0-9._@-]+$/, 'may use letters, digits and . _ @ - only'),
  cid: z
    .string({ error: 'must be a string (the content id)' })
    .min(1, 'must not be empty')
    .max(200, 'must be at most 200 characters'),
  policy: policySchema,
  fault: faultSchema.optional(),
  streams: z
    .strictObject(
      {
        maxPerUser: z
          .number({ error: 'must be a number of streams' })
          .int('must be a whole number of streams')
          .min(1, 'must be at least 1')
          .max(10, 'must be at most 10'),
        renewalSeconds: z
          .number({ error: 'must be a number of seconds' })
          .int('must be a whole number of seconds')
          .min(1, 'must be at least 1')
          .max(3600, 'must be at most 3600'),
      },
      { error: 'must be an object' },
    )
    .optional(),
}) satisfies z.ZodType<PlayRequest>;

const headerName = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

const realServiceSchema = z.strictObject({
  enabled: flag,
  licenseUrl: z.union(
    [
      z.literal(''),
      z.url({ protocol: /^https?$/, error: 'must be an http:// or https:// URL, or empty' }),
    ],
    {
      error: 'must be an http:// or https:// URL, or empty',
    },
  ),
  siteId: text(64),
  header: z.string({ error: 'must be a string' }).regex(headerName, 'must be an HTTP header name'),
  siteKey: text(256).optional(),
  accessKey: text(256).optional(),
}) satisfies z.ZodType<RealServiceInput>;

const argumentSchemas = {
  getSetup: z.tuple([], { error: 'must be empty: getSetup takes no argument' }),
  preparePlay: z.tuple([playRequestSchema], { error: 'must be [request]' }),
  setRealService: z.tuple([realServiceSchema], { error: 'must be [settings]' }),
} as const;

export type CallArguments = { [K in DemoCall]: z.infer<(typeof argumentSchemas)[K]> };

export type ParsedArguments<K extends DemoCall> =
  { ok: true; args: CallArguments[K] } | { ok: false; error: DemoError };

// The page's own names for the fields, so a refusal speaks of what the user sees, not of the
// contract's argument positions.
const FIELD_LABELS: Record<string, string> = {
  mode: 'Mode',
  player: 'Player',
  userId: 'User',
  cid: 'Content',
  'policy.limit': 'Limit',
  'policy.timeRule': 'Time rule',
  'policy.durationSeconds': 'Duration',
  'policy.expireDate': 'Expire date',
  'policy.persistent': 'Persistent',
  'policy.hdcp': 'HDCP',
  'policy.securityLevel': 'Security level',
  'policy.externalKey': 'External key',
  fault: 'Fault',
  enabled: 'Use the real service',
  licenseUrl: 'License server URL',
  siteId: 'Site ID',
  header: 'Header',
  siteKey: 'Site key',
  accessKey: 'Access key',
};

/** Parses the arguments of one call; a refusal names the field and never echoes a value. */
export function parseArguments<K extends DemoCall>(call: K, args: unknown): ParsedArguments<K> {
  const parsed = argumentSchemas[call].safeParse(args);
  if (parsed.success) return { ok: true, args: parsed.data as CallArguments[K] };
  return {
    ok: false,
    error: {
      code: 'INVALID_REQUEST',
      message: `${parsed.error.issues.map((issue) => describeField(call, issue)).join('; ')}.`,
      fix: 'Correct the named field on the page and try again.',
    },
  };
}

function describeField(call: DemoCall, issue: z.core.$ZodIssue): string {
  const [position, ...field] = issue.path.map(String);
  // A fault is one field of the page (its menu), whatever member of it is wrong.
  const key = field[0] === 'fault' ? 'fault' : field.join('.');
  const label = position === '0' ? FIELD_LABELS[key] : undefined;
  if (label !== undefined) return `${label}: ${issue.message}`;
  // Not a field of the page (a script called the API by hand): name the contract's path.
  return `${call}: ${describeIssues(new z.ZodError([issue]), 'arguments')}`;
}
