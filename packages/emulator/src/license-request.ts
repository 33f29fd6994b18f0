import { EmulatorError } from './errors.ts';
import { base64ToBytes, bytesToBase64url, bytesToHex } from './web/bytes.ts';

/** The W3C ClearKey license request a browser's CDM produces: `{"kids":[...],"type":...}`. */
export interface ClearKeyRequest {
  /** The requested key IDs as lowercase hex (32 characters each), in request order, without repeats. */
  kids: string[];
  type: 'temporary' | 'persistent-license';
}

export const MAX_LICENSE_REQUEST_BYTES = 64 * 1024;
const BASE64URL = /^[A-Za-z0-9_-]+$/;
const KID_BYTES = 16;

function bad(message: string): EmulatorError {
  return new EmulatorError(
    'BAD_LICENSE_REQUEST',
    `${message} A license request body is the ClearKey request JSON {"kids":["<base64url key ID>"],"type":"temporary"}.`,
  );
}

/** Parses and checks a ClearKey license request body. */
export function parseLicenseRequest(body: string): ClearKeyRequest {
  if (body.trim() === '') throw bad('The body is empty.');
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    throw bad('The body is not JSON.');
  }
  if (json === null || typeof json !== 'object' || Array.isArray(json)) {
    throw bad('The body is JSON but not an object.');
  }
  const { kids, type } = json as { kids?: unknown; type?: unknown };
  if (!Array.isArray(kids) || kids.length === 0) {
    throw bad('kids: must be a non-empty array.');
  }
  const hexKids: string[] = [];
  for (let i = 0; i < kids.length; i++) {
    const hex = hexOfKid(kids[i], i);
    if (!hexKids.includes(hex)) hexKids.push(hex);
  }
  if (type !== undefined && type !== 'temporary' && type !== 'persistent-license') {
    throw bad('type: must be "temporary" or "persistent-license".');
  }
  return { kids: hexKids, type: type ?? 'temporary' };
}

// Players ask for the same few key IDs again and again: each valid one's hex is kept, up to a bound.
const KIDS_KEPT = 1024;
const kidHex = new Map<string, string>();

function hexOfKid(kid: unknown, i: number): string {
  const known = typeof kid === 'string' ? kidHex.get(kid) : undefined;
  if (known !== undefined) return known;
  if (typeof kid !== 'string' || !BASE64URL.test(kid)) {
    throw bad(`kids.${i}: must be a base64url string without padding.`);
  }
  const bytes = base64ToBytes(kid);
  if (bytes.length !== KID_BYTES || bytesToBase64url(bytes) !== kid) {
    throw bad(`kids.${i}: must encode exactly ${KID_BYTES} bytes, got ${bytes.length}.`);
  }
  const hex = bytesToHex(bytes);
  if (kidHex.size >= KIDS_KEPT) kidHex.clear();
  kidHex.set(kid, hex);
  return hex;
}
