import { describeIssues, drmTypeSchema, type DrmType } from '@multidrm/site-kit';
import { z } from 'zod';
import { EmulatorError } from './errors.ts';
import { base64ToBytes, isStandardBase64, utf8Bytes } from './web/bytes.ts';
import { decryptRawCbc, importAesKey, type AesKey } from './web/crypto.ts';

// Gateway-mode custom data (docs/architecture.md, README decisions): base64 of {"drm_type","site_id","data"}, where data is
// base64(AES-256-CBC(JSON {user_id, cid, oid?})) under the site key, IV "0123456789abcdef".

export interface CustomDataEnvelope {
  drm_type: DrmType;
  site_id: string;
  data: string;
}

export interface CustomDataInner {
  user_id: string;
  cid: string;
  oid?: string;
}

const envelopeSchema = z.strictObject({
  drm_type: drmTypeSchema,
  site_id: z.string({ error: 'must be a string' }).min(1, 'must not be empty'),
  // Only "a string" here: everything about `data` is checked after decryption, in one place.
  data: z.string({ error: 'must be a string' }),
});

const innerSchema = z.strictObject({
  user_id: z.string(),
  cid: z.string().min(1),
  oid: z.string().optional(),
});

/** Reads the envelope, which needs no key. Throws INVALID_CUSTOM_DATA naming the member. */
export function readEnvelope(json: object): CustomDataEnvelope {
  const parsed = envelopeSchema.safeParse(json);
  if (!parsed.success) {
    const field = parsed.error.issues[0]?.path.map(String).join('.');
    throw new EmulatorError(
      'INVALID_CUSTOM_DATA',
      `The custom data envelope breaks its format: ${describeIssues(parsed.error, 'custom_data')}. It must be base64 of {"drm_type","site_id","data"} as the site made it.`,
      undefined,
      field ? { field: `custom_data.${field}` } : {},
    );
  }
  return parsed.data;
}

export function customDataKey(siteKey: string): Promise<AesKey> {
  return importAesKey(utf8Bytes(siteKey));
}

const IV = utf8Bytes('0123456789abcdef');
const BLOCK = 16;
const utf8 = new TextDecoder('utf-8', { fatal: true });
const DUMMY_BLOCK = new Uint8Array(BLOCK);

/**
 * Opens the encrypted part of custom data. There is no early exit: every input is decrypted (a
 * dummy block stands in for data that is not base64 or not whole blocks) without Web Crypto's own
 * padding check, the padding is checked here by arithmetic, not by an exception, and every step
 * (UTF-8, JSON, schema) runs on whatever the previous one gave. The result says only whether it
 * opened: not which step failed, not even to the events or the log. With a fixed IV and no MAC, any
 * channel that tells a padding failure from a JSON or schema failure is a padding oracle that
 * decrypts any ciphertext under the site key.
 */
export async function openCustomData(
  data: string,
  key: AesKey,
): Promise<{ ok: true; value: CustomDataInner } | { ok: false }> {
  const isBase64 = isStandardBase64(data);
  const bytes = base64ToBytes(isBase64 ? data : '');
  const wholeBlocks = bytes.length > 0 && bytes.length % BLOCK === 0;
  const plain = await decryptRawCbc(key, IV, wholeBlocks ? bytes : DUMMY_BLOCK);

  const pad = plain[plain.length - 1] ?? 0;
  let badPadding = pad === 0 || pad > BLOCK ? 1 : 0;
  for (let i = 1; i <= BLOCK; i++) {
    // Every byte of the last block is looked at, whatever the pad length.
    const inPad = i <= pad ? 1 : 0;
    badPadding |= inPad & (plain[plain.length - i] === pad ? 0 : 1);
  }
  const body = plain.subarray(0, plain.length - (badPadding ? 0 : pad));

  let text: string | undefined;
  try {
    text = utf8.decode(body);
  } catch {
    text = undefined;
  }
  let json: unknown;
  try {
    json = JSON.parse(text ?? '');
  } catch {
    json = undefined;
  }
  const inner = innerSchema.safeParse(json);
  const opened = isBase64 && wholeBlocks && !badPadding && text !== undefined && inner.success;
  return opened ? { ok: true, value: inner.data } : { ok: false };
}
