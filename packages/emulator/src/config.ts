import {
  describeIssues,
  HASH_ENCODINGS,
  SITE_KEY_BYTES,
  type HashEncoding,
} from '@multidrm/site-kit';
import { z } from 'zod';
import { REFUSAL_REASONS, type RefusalReason } from './errors.ts';
import { faultSchema } from './faults/fault-schema.ts';
import { utf8Bytes } from './web/bytes.ts';

const text = (what: string) =>
  z.string({ error: `must be a string (${what})` }).min(1, `must not be empty (${what})`);

const hex16 = (what: string) =>
  z
    .string({ error: `must be a string of 32 hex characters (${what})` })
    .regex(/^[0-9a-fA-F]{32}$/, `must be exactly 32 hex characters, 16 bytes (${what})`)
    .transform((v) => v.toLowerCase());

const siteSchema = z.strictObject(
  {
    siteId: text('the site ID'),
    siteKey: z
      .string({ error: 'must be a string (the 32-character site key)' })
      .refine(
        (v) => utf8Bytes(v).length === SITE_KEY_BYTES,
        `must be exactly ${SITE_KEY_BYTES} bytes for AES-256 (the 32-character site key)`,
      ),
    accessKey: text('the site access key'),
    gatewayUrl: z
      .url({ protocol: /^https?$/, error: 'must be an http:// or https:// URL' })
      .optional(),
    gatewayFormat: z.enum(['json', 'xml'], { error: 'must be "json" or "xml"' }).default('json'),
    /** This site's token validity window (the guide: the operator sets it per site); default the global one. */
    tokenValiditySeconds: z
      .number({ error: 'must be a number of seconds' })
      .nonnegative('must not be negative')
      .optional(),
  },
  { error: 'must be an object' },
);

const contentKeySchema = z.strictObject(
  { kid: hex16('the key ID'), key: hex16('the content key') },
  { error: 'must be an object {"kid","key"}' },
);

const headerName = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

const seconds = (fallback: number) =>
  z
    .number({ error: 'must be a number of seconds' })
    .nonnegative('must not be negative')
    .default(fallback);

/** The answers of the emulator: the license service's (default), or the project's 4xx ones. */
export const DIALECTS = ['service', 'explain'] as const;
/**
 * How refusals are answered: `service` (HTTP 200 with the service's code) or `explain` (4xx with
 * the named reason).
 */
export type Dialect = (typeof DIALECTS)[number];
// http(s), or an app's own registered scheme (the Electron demo's page is multidrm-demo://app).
const origin = /^[a-z][a-z0-9+.-]*:\/\/[^/?#\s]+$/;
// A host name or address with an optional port, as a Host header carries it.
const hostName = /^(?:[A-Za-z0-9._-]+|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;

/**
 * Validates an emulator config (the JSON file's shape) and fills in defaults; {@link parseConfig}
 * turns its issues into a {@link ConfigError}.
 */
export const emulatorConfigSchema = z
  .strictObject(
    {
      sites: z
        .array(siteSchema, {
          error: (issue) =>
            issue.input === undefined
              ? 'is required: the sites whose tokens and gateways the emulator serves'
              : 'must be an array of sites',
        })
        .min(1, 'must name at least one site'),
      /** Content keys by cid: one {kid, key}, or several when audio and video use their own keys. */
      keys: z
        .record(
          z.string().min(1, 'a cid must not be empty'),
          z.union([contentKeySchema, z.array(contentKeySchema).min(1)], {
            error: 'must be {"kid","key"} (32 hex characters each) or an array of them',
          }),
        )
        .default({})
        .transform((keys) =>
          Object.fromEntries(
            Object.entries(keys).map(([cid, k]) => [cid, Array.isArray(k) ? k : [k]]),
          ),
        ),
      /** service: HTTP 200 + {"errorCode","message",...} like the license service; explain: 4xx. */
      dialect: z.enum(DIALECTS, { error: 'must be "service" or "explain"' }).default('service'),
      /** Overrides of the service code of a refusal reason, e.g. {"STREAM_LIMIT_REACHED": "6003"}. */
      errorCodes: z
        .partialRecord(
          z.enum(REFUSAL_REASONS as [RefusalReason, ...RefusalReason[]]),
          z
            .string({ error: 'must be a string of digits' })
            .regex(/^\d{1,9}$/, 'must be a string of 1 to 9 digits'),
          { error: 'must be an object {"<REASON>": "<digits>"}' },
        )
        .default({}),
      /** The service's current guide: 600 s after the token's timestamp (the old spec text: 60 s). */
      tokenValiditySeconds: seconds(600),
      /** How far a token's timestamp may lie in the future: a small tolerance for clocks. */
      clockSkewSeconds: seconds(5),
      /** A stream keeps counting this long after its renewal interval ran out (see the README). */
      streamGraceSeconds: seconds(30),
      /** The renewal interval of a license whose policy sets no renewal_duration. */
      renewalIntervalSeconds: z
        .number({ error: 'must be a number of seconds' })
        .positive('must be more than 0')
        .default(60),
      hashEncoding: z
        .enum(HASH_ENCODINGS as [HashEncoding, ...HashEncoding[]], {
          error: 'must be "hex-text" or "raw-digest"',
        })
        .default('hex-text'),
      customDataHeader: z
        .string({ error: 'must be a string' })
        .regex(headerName, 'must be a valid HTTP header name')
        .transform((v) => v.toLowerCase())
        .default('x-drm-custom-data'),
      gatewayTimeoutMs: z
        .number({ error: 'must be a number of milliseconds' })
        .int('must be a whole number of milliseconds')
        .positive('must be more than 0')
        .default(5000),
      /** Faults injected on purpose (see the README's Faults): the same vocabulary as the msw kit. */
      faults: z.array(faultSchema, { error: 'must be an array of faults' }).default([]),
      /**
       * Host headers the HTTP server answers, e.g. "emulator.test:8443" ("*": any); absent =
       * localhost, 127.0.0.1 and [::1] with the port it listens on. Anything else is refused before
       * it is read: a DNS-rebinding page could otherwise read /events and /health.
       */
      allowedHosts: z
        .array(
          z
            .string()
            .refine((v) => v === '*' || hostName.test(v), {
              message: 'must be "*" or a host with an optional port, such as "emulator.test:8443"',
            })
            .transform((v) => v.toLowerCase()),
          { error: 'must be an array of hosts' },
        )
        .optional(),
      /** Browser origins allowed by CORS; absent = any origin ("*"). */
      allowedOrigins: z
        .array(
          z.string().refine((v) => v === '*' || origin.test(v), {
            message: 'must be "*" or an origin such as "http://localhost:8080" (no path)',
          }),
          { error: 'must be an array of origins' },
        )
        .optional(),
    },
    { error: 'must be a JSON object' },
  )
  .superRefine((config, ctx) => {
    const seen = new Set<string>();
    config.sites.forEach((site, i) => {
      if (seen.has(site.siteId)) {
        ctx.addIssue({
          code: 'custom',
          path: ['sites', i, 'siteId'],
          message: `"${site.siteId}" is configured twice; each siteId must be unique`,
          input: site.siteId,
        });
      }
      seen.add(site.siteId);
    });
  });

/** The config as written in the JSON file. */
export type EmulatorConfigInput = z.input<typeof emulatorConfigSchema>;
/** The config with defaults applied: what the emulator runs with. */
export type EmulatorConfig = z.output<typeof emulatorConfigSchema>;
/**
 * One configured site: its keys, and its gateway (`gatewayUrl`, `gatewayFormat`) when it uses
 * gateway mode.
 */
export type SiteConfig = EmulatorConfig['sites'][number];
/** One content key of a cid: key ID and key, 32 lowercase hex characters (16 bytes) each. */
export type ContentKey = z.output<typeof contentKeySchema>;

/**
 * Thrown for a config that cannot be used (invalid, unreadable file, bad JSON); `issues` names each
 * problem by its field path, without echoing values.
 */
export class ConfigError extends Error {
  override name = 'ConfigError';
  /** One sentence per problem, each naming its field path. */
  readonly issues: readonly string[];

  constructor(message: string, issues: readonly string[] = []) {
    super(message);
    this.issues = issues;
  }
}

/** Validates a config object; every problem is named by its field path, no value is echoed. */
export function parseConfig(input: unknown): EmulatorConfig {
  const parsed = emulatorConfigSchema.safeParse(input);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((issue) =>
      describeIssues(new z.ZodError([issue]), 'config'),
    );
    throw new ConfigError(`Invalid emulator config: ${issues.join('; ')}.`, issues);
  }
  return parsed.data;
}
