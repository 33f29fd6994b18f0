import * as z from 'zod';
import type { SiteKeyInput } from '../crypto/site-key.ts';
import { base64ToText, isBase64, textToBase64 } from '../encoding/base64.ts';
import { SiteKitError } from '../errors.ts';
import { drmTypeSchema, type DrmType } from '../schemas/drm-type.ts';
import { mustBe } from '../schemas/must-be.ts';
import { describeIssues } from '../schemas/issues.ts';

// README decisions: custom data = base64(UTF-8 JSON {"drm_type","site_id","data"}), where
// data = base64(aes256(JSON {user_id, cid, oid})). The envelope is readable without keys so that the
// license service can find the site by site_id; only the site can read or forge the inner part.

/**
 * What gateway-mode custom data says: the site and DRM in the clear, the user, content and order
 * encrypted with the site key.
 */
export interface CustomDataOptions {
  siteId: string;
  siteKey: SiteKeyInput;
  drmType: DrmType;
  userId: string;
  cid: string;
  oid?: string;
}

/**
 * The readable outer JSON of custom data: `data` is base64 of the AES-256 encrypted `{user_id, cid,
 * oid}`, so only the site can read or forge it.
 */
export interface CustomDataEnvelope {
  drm_type: DrmType;
  site_id: string;
  data: string;
}

/** Custom data as the site reads it back: the envelope's fields with the decrypted inner part. */
export interface ParsedCustomData {
  drm_type: DrmType;
  site_id: string;
  user_id: string;
  cid: string;
  oid?: string;
}

const text = (what: string) =>
  z.string({ error: mustBe(`a string (${what})`) }).min(1, `must not be empty (${what})`);

const envelopeSchema = z.strictObject(
  {
    drm_type: drmTypeSchema,
    site_id: text('the site ID'),
    data: text('base64 of the encrypted user data').refine(isBase64, 'must be standard base64'),
  },
  { error: mustBe('a JSON object') },
);

const innerSchema = z.strictObject(
  {
    user_id: z.string({ error: mustBe('a string') }),
    cid: text('the content ID'),
    oid: z.string({ error: mustBe('a string') }).optional(),
  },
  { error: mustBe('a JSON object') },
);

const optionsSchema = z.object({
  siteId: text('the site ID from the administration site'),
  drmType: drmTypeSchema,
  userId: z.string({ error: mustBe('a string') }),
  cid: text('the content ID'),
  oid: z.string({ error: mustBe('a string') }).optional(),
});

/** The checked options: the inner JSON to encrypt and the envelope's other members. */
export function customDataParts(options: Omit<CustomDataOptions, 'siteKey'>): {
  inner: string;
  drmType: DrmType;
  siteId: string;
} {
  const parsed = optionsSchema.safeParse(options);
  if (!parsed.success) throw new SiteKitError('INVALID_INPUT', describeIssues(parsed.error, ''));
  const { siteId, drmType, userId, cid, oid } = parsed.data;
  const inner = JSON.stringify(
    oid === undefined ? { user_id: userId, cid } : { user_id: userId, cid, oid },
  );
  return { inner, drmType, siteId };
}

/** The custom data string around the encrypted inner part. */
export function customDataText(parts: { drmType: DrmType; siteId: string }, data: string): string {
  return textToBase64(JSON.stringify({ drm_type: parts.drmType, site_id: parts.siteId, data }));
}

/** Reads the outer envelope without keys. Throws SiteKitError INVALID_CUSTOM_DATA. */
export function readCustomDataEnvelope(value: string): CustomDataEnvelope {
  if (typeof value !== 'string' || value.trim().length === 0) {
    throw new SiteKitError(
      'INVALID_CUSTOM_DATA',
      'The custom data is empty: pass the string the site handed to the player.',
    );
  }
  const trimmed = value.trim();
  if (!isBase64(trimmed)) {
    throw new SiteKitError(
      'INVALID_CUSTOM_DATA',
      'The custom data is not standard base64 (check for cut, URL-encoded or URL-safe text).',
    );
  }
  let json: unknown;
  try {
    json = JSON.parse(base64ToText(trimmed));
  } catch {
    throw new SiteKitError(
      'INVALID_CUSTOM_DATA',
      'The custom data is base64, but what it holds is not JSON: it must be base64 of {"drm_type","site_id","data"}.',
    );
  }
  const parsed = envelopeSchema.safeParse(json);
  if (!parsed.success) {
    throw new SiteKitError(
      'INVALID_CUSTOM_DATA',
      `The custom data breaks its format: ${describeIssues(parsed.error, 'custom_data')}.`,
    );
  }
  return parsed.data;
}

/** The full custom data from its envelope and the decrypted inner text. */
export function parsedCustomData(
  envelope: CustomDataEnvelope,
  plaintext: string,
): ParsedCustomData {
  let json: unknown;
  try {
    json = JSON.parse(plaintext);
  } catch {
    throw new SiteKitError(
      'INVALID_CUSTOM_DATA',
      'The custom data decrypts, but not to JSON: the site key is probably not the one it was made with.',
    );
  }
  const parsed = innerSchema.safeParse(json);
  if (!parsed.success) {
    throw new SiteKitError(
      'INVALID_CUSTOM_DATA',
      `The custom data's user data breaks its format: ${describeIssues(parsed.error, 'custom_data.data')}.`,
    );
  }
  return { drm_type: envelope.drm_type, site_id: envelope.site_id, ...parsed.data };
}
