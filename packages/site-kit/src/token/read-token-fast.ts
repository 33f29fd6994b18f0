import { isBase64 } from '../encoding/base64.ts';
import { canonicalDrmType, type DrmType } from '../schemas/drm-type.ts';
import { isPlainObject, onlyKnown } from '../schemas/plain-object.ts';
import { RESPONSE_FORMATS, type ResponseFormat } from '../schemas/response-format.ts';
import { parseTimestamp } from '../schemas/timestamp.ts';
import type { LicenseTokenV1, LicenseTokenV2 } from '../schemas/token.ts';
import type { TimedRead } from './decode.ts';
import { drmTypeCaseWarning } from './drm-type-case.ts';

// The token JSON of the usual token, checked by hand: the token schemas' parse cost a verified token
// more than its hash (zod's code is large and megamorphic, slower still inside a busy server). It
// reads only a token whose every member is known and valid, and gives undefined for anything else
// (an unknown or missing member, a wrong type, an empty string...), which the schema then reads and
// words the error for. When it reads, the result is the schema path's, down to the order of the
// members and the warnings (test/core/token-read-fast.test.ts).

const V1 = new Set(['drm_type', 'site_id', 'user_id', 'cid', 'token', 'timestamp', 'hash']);
const V2 = new Set([
  'drm_type',
  'site_id',
  'user_id',
  'cid',
  'policy',
  'response_format',
  'key_rotation',
  'timestamp',
  'hash',
]);

const isText = (value: unknown): value is string => typeof value === 'string' && value.length > 0;
const isBase64Text = (value: unknown): value is string => isText(value) && isBase64(value);
const isResponseFormat = (value: unknown): value is ResponseFormat =>
  typeof value === 'string' && (RESPONSE_FORMATS as readonly string[]).includes(value);

/** The token JSON read as licenseTokenV1Schema / licenseTokenV2Schema would, or undefined when not sure. */
export function readTokenFast(json: Record<string, unknown>): TimedRead | undefined {
  if (!isPlainObject(json)) return undefined;
  const { drm_type: sent, site_id: siteId, user_id: userId, cid, timestamp, hash } = json;
  if (!isText(siteId) || !isText(userId) || !isText(cid) || !isBase64Text(hash)) return undefined;
  if (typeof timestamp !== 'string') return undefined;
  const issuedMs = parseTimestamp(timestamp);
  if (issuedMs === undefined) return undefined;
  let drmType: DrmType | undefined;
  let asSent: string | undefined;
  // site_id, user_id, cid, timestamp, hash and the token's data.
  let count = 6;
  if (sent !== undefined) {
    drmType = canonicalDrmType(sent);
    if (drmType === undefined) return undefined;
    asSent = sent as string;
    count++;
  }
  const warnings = drmTypeCaseWarning(asSent, drmType);
  const data = json['token'];
  if (data !== undefined) {
    // A "policy" member beside "token" is unknown here: the schema path words that refusal.
    if (!isBase64Text(data) || !onlyKnown(json, count, V1)) return undefined;
    // zod writes members in shape order and leaves absent ones out.
    const fields: LicenseTokenV1 =
      drmType === undefined
        ? { site_id: siteId, user_id: userId, cid, token: data, timestamp, hash }
        : {
            drm_type: drmType,
            site_id: siteId,
            user_id: userId,
            cid,
            token: data,
            timestamp,
            hash,
          };
    return { read: { version: 1, fields, warnings, drmTypeAsSent: asSent }, issuedMs };
  }
  const policy = json['policy'];
  if (!isBase64Text(policy)) return undefined;
  const { response_format: format, key_rotation: rotation } = json;
  if (format !== undefined) {
    if (!isResponseFormat(format)) return undefined;
    count++;
  }
  if (rotation !== undefined) {
    if (typeof rotation !== 'boolean') return undefined;
    count++;
  }
  if (!onlyKnown(json, count, V2)) return undefined;
  const fields: Partial<LicenseTokenV2> = {};
  if (drmType !== undefined) fields.drm_type = drmType;
  fields.site_id = siteId;
  fields.user_id = userId;
  fields.cid = cid;
  fields.policy = policy;
  if (format !== undefined) fields.response_format = format;
  if (rotation !== undefined) fields.key_rotation = rotation;
  fields.timestamp = timestamp;
  fields.hash = hash;
  return {
    read: { version: 2, fields: fields as LicenseTokenV2, warnings, drmTypeAsSent: asSent },
    issuedMs,
  };
}
