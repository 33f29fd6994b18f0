import * as z from 'zod';
import { mustBe } from '../schemas/must-be.ts';
import { canonicalDrmType, drmTypeSchema, type DrmType } from '../schemas/drm-type.ts';
import { buildXml } from './xml.ts';
import { isPlainObject } from '../schemas/plain-object.ts';

/** The format the license service called the gateway in; the answer must use the same one. */
export type GatewayFormat = 'json' | 'xml';

/** What the license service sends to the site's gateway, in the spec's field names. */
export interface GatewayRequest {
  format: GatewayFormat;
  user_id: string;
  cid: string;
  oid?: string;
  nonce: string;
  device_id?: string;
  device_type?: string;
  /** JSON requests only: the XML (old specification) request carries USERID, CID, OID and NONCE. */
  drm_type?: DrmType;
}

const str = z.string({ error: mustBe('a string') });
const required = (what: string) => str.min(1, `must not be empty (${what})`);

// user_id may be empty: response_user_id exists for clients that do not know the site's user ID.
// Unknown members are dropped rather than refused, so a license service that adds a field does not
// break every site; the known ones are checked strictly.
export const jsonGatewayRequestSchema = z.object(
  {
    user_id: str,
    cid: required('the content ID'),
    oid: str.optional(),
    nonce: required('the one-time value the answer must return'),
    device_id: str.optional(),
    // The spec lists OS-X, Windows, Android and iOS; other values are passed on to the site as sent.
    device_type: str.optional(),
    drm_type: drmTypeSchema,
  },
  { error: mustBe('a JSON object') },
);

export const xmlGatewayRequestSchema = z.object(
  {
    USERID: str,
    CID: required('the content ID'),
    OID: str.optional(),
    NONCE: required('the one-time value the answer must return'),
  },
  { error: mustBe('an element with child elements USERID, CID, OID, NONCE') },
);

export type RequestParse =
  { success: true; data: GatewayRequest } | { success: false; error: z.ZodError };

/** Validates a JSON request (the decrypted object) into a GatewayRequest, or gives the zod error. */
export function parseJsonGatewayRequest(value: unknown): RequestParse {
  const fast = readJsonRequest(value);
  if (fast !== undefined) return { success: true, data: fast };
  const parsed = jsonGatewayRequestSchema.safeParse(value);
  if (!parsed.success) return parsed;
  return { success: true, data: { format: 'json', ...parsed.data } };
}

/** Validates the RES element of an XML request into a GatewayRequest. */
export function parseXmlGatewayRequest(res: unknown): RequestParse {
  const parsed = xmlGatewayRequestSchema.safeParse(res);
  if (!parsed.success) return parsed;
  const { USERID, CID, OID, NONCE } = parsed.data;
  const request: GatewayRequest = { format: 'xml', user_id: USERID, cid: CID, nonce: NONCE };
  if (OID !== undefined) request.oid = OID;
  return { success: true, data: request };
}

/** The plaintext the license service encrypts: JSON members in the spec's table order, or XML RES. */
export function serializeGatewayRequest(request: GatewayRequest): string {
  if (request.format === 'xml') {
    const res: Record<string, string> = { USERID: request.user_id, CID: request.cid };
    if (request.oid !== undefined) res['OID'] = request.oid;
    res['NONCE'] = request.nonce;
    return buildXml('RES', res);
  }
  const { format: _format, ...fields } = request;
  return JSON.stringify(jsonGatewayRequestSchema.parse(fields));
}

/**
 * The schema's reading of a well-formed JSON request, by hand: a request costs one JSON.parse and
 * this instead of a zod parse. The same object (members in shape order, unknown ones dropped,
 * drm_type in its canonical spelling); undefined for anything it is not sure of, which the schema
 * then reads or refuses with its message (test/gateway/request-fast.test.ts holds the two equal).
 */
function readJsonRequest(value: unknown): GatewayRequest | undefined {
  if (!isPlainObject(value)) return undefined;
  const { user_id, cid, oid, nonce, device_id, device_type, drm_type } = value as Record<
    string,
    unknown
  >;
  const drmType = canonicalDrmType(drm_type);
  if (
    typeof user_id !== 'string' ||
    typeof cid !== 'string' ||
    cid.length === 0 ||
    typeof nonce !== 'string' ||
    nonce.length === 0 ||
    drmType === undefined ||
    !optionalText(value, 'oid', oid) ||
    !optionalText(value, 'device_id', device_id) ||
    !optionalText(value, 'device_type', device_type)
  ) {
    return undefined;
  }
  const request = { format: 'json', user_id, cid } as GatewayRequest;
  if (oid !== undefined) request.oid = oid as string;
  request.nonce = nonce;
  if (device_id !== undefined) request.device_id = device_id as string;
  if (device_type !== undefined) request.device_type = device_type as string;
  request.drm_type = drmType;
  return request;
}

/** A string, or absent; a member that is there but undefined is the schema's to read. */
function optionalText(value: object, name: string, member: unknown): boolean {
  return typeof member === 'string' || (member === undefined && !(name in value));
}
