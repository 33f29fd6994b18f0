import * as z from 'zod';
import { mustBe } from '../schemas/must-be.ts';
import { isBase64 } from '../encoding/base64.ts';
import {
  externalKeySchema,
  lenientPlaybackPolicySchema,
  securityPolicySchema,
  type ExternalKey,
  type PlaybackPolicy,
  type SecurityPolicy,
} from '../schemas/policy.ts';
import { parseTimestamp, timestampSchema } from '../schemas/timestamp.ts';
import { buildXml, type XmlElement } from './xml.ts';

/** The spec's success code in both formats. */
export const SUCCESS_CODE = '0000';

/**
 * A gateway answer to a JSON request, in the spec's member names; policies use the v1 token data
 * shapes.
 */
export interface JsonGatewayAnswer {
  format: 'json';
  /** "0000" success, else a numeric code defined by the site (any number of digits). */
  error_code: string;
  error_message: string;
  /** Always sent by site-kit; required in an allowing answer, a refusal may lack it. */
  nonce?: string;
  response_user_id?: string;
  playback_policy?: PlaybackPolicy;
  security_policy?: SecurityPolicy;
  external_key?: ExternalKey;
}

/**
 * A gateway answer to an XML request, in the spec's element names (`ERROR` "0000" is success;
 * `PD_START`/`PD_END` are spec times).
 */
export interface XmlGatewayAnswer {
  format: 'xml';
  ERROR: string;
  ERRMSG: string;
  /** Required in an allowing answer, a refusal may lack it. */
  NONCE?: string;
  LIMIT?: 'Y' | 'N';
  PD_START?: string;
  PD_END?: string;
  PC?: { HDCP: number; 'CGMS-A': number; APS: number };
  /** Values are base64 of 16 bytes. */
  PACKINFO?: { KEYID: string; KEY: string; IV?: string };
}

/**
 * The nonce of an answer, or undefined for a refusal that carries none: a refusal without nonce
 * still says no (the site's code must not be lost), an allowing answer without one is invalid.
 */
export function answerNonce(answer: GatewayAnswer): string | undefined {
  return answer.format === 'json' ? answer.nonce : answer.NONCE;
}

/** The gateway's answer after decryption, in the format of the request it answers. */
export type GatewayAnswer = JsonGatewayAnswer | XmlGatewayAnswer;

// The JSON type's failure code is "a numeric code defined by the site"; only the old XML type
// fixes it at 4 bytes.
const jsonCode = z
  .string({ error: mustBe('a string of digits') })
  .regex(/^\d+$/, 'must be a numeric code ("0000" is success)');
// "a 4-byte code other than 0000": four visible ASCII characters, so "E001" is a site's code too.
const xmlCode = z
  .string({ error: mustBe('a 4-byte code') })
  .regex(/^[\x21-\x7e]{4}$/, 'must be a 4-byte code such as "0000" (success) or "E001"');
const str = z.string({ error: mustBe('a string') });

/** Nonce and playback_policy are demanded of an allowing answer only; a refusal may lack both. */
function requireOnSuccess(
  success: boolean,
  members: Record<string, unknown>,
  ctx: z.core.$RefinementCtx,
  answer: unknown,
): void {
  if (!success) return;
  for (const [name, value] of Object.entries(members)) {
    if (value === undefined) {
      ctx.addIssue({
        code: 'custom',
        path: [name],
        message: 'is required when the answer allows (error code "0000")',
        input: answer,
      });
    }
  }
}

// The license service applies the "applied only when" rules by precedence, so the answer is read with
// the lenient playback rules, as a token's data is.
export const jsonGatewayAnswerSchema = z
  .strictObject(
    {
      error_code: jsonCode,
      error_message: str,
      response_user_id: str.optional(),
      playback_policy: z.optional(lenientPlaybackPolicySchema),
      security_policy: z.optional(securityPolicySchema),
      external_key: z.optional(externalKeySchema),
      nonce: str.optional(),
    },
    { error: mustBe('a JSON object') },
  )
  .superRefine((answer, ctx) =>
    requireOnSuccess(
      answer.error_code === SUCCESS_CODE,
      { playback_policy: answer.playback_policy, nonce: answer.nonce },
      ctx,
      answer,
    ),
  );

const int = (min: number, max: number, meaning: string) =>
  z
    .string({ error: mustBe(`a number from ${min} to ${max} (${meaning})`) })
    .regex(/^-?\d+$/, `must be a whole number from ${min} to ${max} (${meaning})`)
    .transform(Number)
    .refine((n) => n >= min && n <= max, `must be from ${min} to ${max} (${meaning})`);

// Canonical base64 of 16 bytes is exactly 24 characters ending in "==".
const b64bytes16 = str.refine(
  (v) => v.length === 24 && v.endsWith('==') && isBase64(v),
  'must be base64 of 16 bytes',
);

export const PERIOD_END_MESSAGE = 'is required when LIMIT is Y (a limited period needs its end)';
export const PERIOD_ORDER_MESSAGE = 'must be before PD_END (the period starts before it ends)';

// Attribute names carry the parser's "@_" prefix; they are renamed when the answer is returned.
export const xmlGatewayAnswerSchema = z
  .strictObject(
    {
      ERROR: xmlCode,
      ERRMSG: str,
      LIMIT: z.enum(['Y', 'N'], { error: mustBe('Y or N') }).optional(),
      PD_START: z.optional(timestampSchema),
      PD_END: z.optional(timestampSchema),
      PC: z
        .strictObject(
          {
            '@_HDCP': int(0, 1, '0 non-HDCP allowed, 1 HDCP only').optional(),
            '@_CGMS-A': int(-1, 3, '-1 off, 0 to 3 copy control').optional(),
            '@_APS': int(0, 3, '0 off, 1 to 3 AGC and colour stripe').optional(),
          },
          { error: mustBe('an element with attributes HDCP, CGMS-A, APS') },
        )
        .optional(),
      PACKINFO: z
        .strictObject(
          { '@_KEYID': b64bytes16, '@_KEY': b64bytes16, '@_IV': b64bytes16.optional() },
          { error: mustBe('an element with attributes KEYID, KEY and optionally IV') },
        )
        .optional(),
      NONCE: str.optional(),
    },
    { error: mustBe('an element with child elements ERROR, ERRMSG, ..., NONCE') },
  )
  .superRefine((res, ctx) => {
    requireOnSuccess(res.ERROR === SUCCESS_CODE, { NONCE: res.NONCE }, ctx, res);
    if (res.ERROR !== SUCCESS_CODE) return;
    // LIMIT=Y is a limited period: without its end it would be an unlimited license.
    if (res.LIMIT === 'Y' && res.PD_END === undefined) {
      ctx.addIssue({ code: 'custom', path: ['PD_END'], message: PERIOD_END_MESSAGE, input: res });
    }
    const start = res.PD_START === undefined ? undefined : parseTimestamp(res.PD_START);
    const end = res.PD_END === undefined ? undefined : parseTimestamp(res.PD_END);
    if (start !== undefined && end !== undefined && start >= end) {
      ctx.addIssue({
        code: 'custom',
        path: ['PD_START'],
        message: PERIOD_ORDER_MESSAGE,
        input: res,
      });
    }
  });

/** Turns a parsed XML RES element into the answer object with plain attribute names and defaults. */
export function fromXmlElements(res: z.infer<typeof xmlGatewayAnswerSchema>): XmlGatewayAnswer {
  const answer: XmlGatewayAnswer = {
    format: 'xml',
    ERROR: res.ERROR,
    ERRMSG: res.ERRMSG,
  };
  if (res.LIMIT !== undefined) answer.LIMIT = res.LIMIT;
  if (res.PD_START !== undefined) answer.PD_START = res.PD_START;
  if (res.PD_END !== undefined) answer.PD_END = res.PD_END;
  if (res.PC !== undefined) {
    answer.PC = {
      HDCP: res.PC['@_HDCP'] ?? 0,
      'CGMS-A': res.PC['@_CGMS-A'] ?? -1,
      APS: res.PC['@_APS'] ?? 0,
    };
  }
  if (res.PACKINFO !== undefined) {
    answer.PACKINFO = { KEYID: res.PACKINFO['@_KEYID'], KEY: res.PACKINFO['@_KEY'] };
    if (res.PACKINFO['@_IV'] !== undefined) answer.PACKINFO.IV = res.PACKINFO['@_IV'];
  }
  if (res.NONCE !== undefined) answer.NONCE = res.NONCE;
  return answer;
}

/**
 * The playback_policy a JSON refusal carries. The main spec marks playback_policy required in every
 * answer, and the service's own gateway samples build each answer from one rule object, so a refusal
 * carries it too; the spec's defaults (unlimited, streaming) say nothing the refusal does not.
 */
export const REFUSAL_PLAYBACK_POLICY = { limit: false, persistent: false } as const;

/** The plaintext the gateway encrypts: JSON in the spec's member order, or the XML RES document. */
export function serializeGatewayAnswer(answer: GatewayAnswer): string {
  if (answer.format === 'json') {
    const { format: _format, ...fields } = answer;
    const refusal = fields.error_code !== SUCCESS_CODE;
    return JSON.stringify({
      error_code: fields.error_code,
      error_message: fields.error_message,
      response_user_id: fields.response_user_id,
      playback_policy: fields.playback_policy ?? (refusal ? REFUSAL_PLAYBACK_POLICY : undefined),
      security_policy: fields.security_policy,
      external_key: fields.external_key,
      nonce: fields.nonce,
    });
  }
  const res: XmlElement = { ERROR: answer.ERROR, ERRMSG: answer.ERRMSG };
  if (answer.LIMIT !== undefined) res['LIMIT'] = answer.LIMIT;
  if (answer.PD_START !== undefined) res['PD_START'] = answer.PD_START;
  if (answer.PD_END !== undefined) res['PD_END'] = answer.PD_END;
  if (answer.PC !== undefined) {
    res['PC'] = {
      '@_HDCP': answer.PC.HDCP,
      '@_CGMS-A': answer.PC['CGMS-A'],
      '@_APS': answer.PC.APS,
    };
  }
  if (answer.PACKINFO !== undefined) {
    const { KEYID, KEY, IV } = answer.PACKINFO;
    res['PACKINFO'] =
      IV === undefined
        ? { '@_KEYID': KEYID, '@_KEY': KEY }
        : { '@_KEYID': KEYID, '@_KEY': KEY, '@_IV': IV };
  }
  if (answer.NONCE !== undefined) res['NONCE'] = answer.NONCE;
  return buildXml('RES', res);
}
