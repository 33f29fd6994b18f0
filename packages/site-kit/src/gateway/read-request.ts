import type { AsyncCrypto } from '../crypto/async-crypto.ts';
import type { Opened } from '../crypto/cbc-rules.ts';
import { SiteKitError } from '../errors.ts';
import { describeIssues } from '../schemas/issues.ts';
import {
  parseJsonGatewayRequest,
  parseXmlGatewayRequest,
  type GatewayFormat,
  type GatewayRequest,
} from './request.ts';
import { parseXml } from './xml.ts';

/**
 * Where reading a request stopped. 'unreadable' covers everything up to a parsed plaintext (bad
 * base64, bad padding, not JSON nor XML): the handler must answer all of them alike. 'invalid' means
 * the plaintext parsed, so the answer may be an encrypted error in its format.
 */
export type ReadOutcome =
  | { ok: true; request: GatewayRequest }
  | { ok: false; stage: 'unreadable'; reason: string }
  | { ok: false; stage: 'invalid'; format: GatewayFormat; nonce?: string; reason: string };

/**
 * Decrypts the base64 `data` value and validates the JSON or XML request inside. A bad padding takes
 * the path of a bad plaintext: the text is parsed all the same, then one failure branch answers.
 */
export async function readGatewayRequest<K>(
  crypto: AsyncCrypto<K>,
  data: string,
  key: K,
): Promise<ReadOutcome> {
  let opened: Opened;
  try {
    opened = await crypto.open(data, key);
  } catch (error) {
    return unopened(error);
  }
  return readOpened(opened);
}

/** The same, synchronously, for a decryption that already happened (`open` may throw). */
export function readGatewayRequestSync(open: () => Opened): ReadOutcome {
  let opened: Opened;
  try {
    opened = open();
  } catch (error) {
    return unopened(error);
  }
  return readOpened(opened);
}

function unopened(error: unknown): ReadOutcome {
  const reason = error instanceof SiteKitError ? error.message : 'decryption failed';
  return { ok: false, stage: 'unreadable', reason };
}

// One reason for every body that decrypted to something unusable, bad padding or not UTF-8 or not
// JSON/XML alike, also in the events: a site log that told them apart would be a padding oracle for
// whoever reads it. (Bad base64 and a partial block keep their own: they show in the body itself.)
const DAMAGED =
  'Decryption failed (bad PKCS7 padding, not UTF-8, or neither JSON nor XML): the site key is wrong or the body was changed.';

function readOpened(opened: Opened): ReadOutcome {
  // The plaintext is parsed whatever the padding, so that both take the same path and time.
  const outcome = readPlaintext(opened.text);
  if (opened.intact && (outcome.ok || outcome.stage === 'invalid')) return outcome;
  return { ok: false, stage: 'unreadable', reason: DAMAGED };
}

/** Tells JSON from XML by the first character and validates the request it holds. */
export function readPlaintext(plaintext: string): ReadOutcome {
  // One leading byte order mark is dropped (a regex replace per request cost more than this test).
  const text = (plaintext.charCodeAt(0) === 0xfeff ? plaintext.slice(1) : plaintext).trimStart();
  if (text.startsWith('<')) return readXml(text);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return {
      ok: false,
      stage: 'unreadable',
      reason: 'the decrypted request is neither JSON nor XML',
    };
  }
  const parsed = parseJsonGatewayRequest(json);
  if (parsed.success) return { ok: true, request: parsed.data };
  return {
    ok: false,
    stage: 'invalid',
    format: 'json',
    nonce: nonceOf(json, 'nonce'),
    reason: `The JSON gateway request breaks the spec: ${describeIssues(parsed.error, 'request')}.`,
  };
}

function readXml(text: string): ReadOutcome {
  const doc = parseXml(text);
  if (doc === undefined) {
    return {
      ok: false,
      stage: 'unreadable',
      reason: 'the decrypted request is not well-formed XML',
    };
  }
  const res = doc['RES'];
  const parsed = parseXmlGatewayRequest(res);
  if (parsed.success) return { ok: true, request: parsed.data };
  return {
    ok: false,
    stage: 'invalid',
    format: 'xml',
    nonce: nonceOf(res, 'NONCE'),
    reason:
      res === undefined
        ? 'The XML gateway request has no root element RES.'
        : `The XML gateway request breaks the old specification: ${describeIssues(parsed.error, 'RES')}.`,
  };
}

function nonceOf(value: unknown, name: string): string | undefined {
  if (value === null || typeof value !== 'object') return undefined;
  const nonce = (value as Record<string, unknown>)[name];
  return typeof nonce === 'string' && nonce.length > 0 ? nonce : undefined;
}
