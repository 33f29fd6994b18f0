import { decryptWithKey, encryptWithKey } from '../crypto/aes.ts';
import { toAesKey, type SiteKeyInput } from '../crypto/site-key.ts';
import { SiteKitError } from '../errors.ts';
import { formatDataParameter, readDataParameter } from '../http/form-body.ts';
import { describeIssues } from '../schemas/issues.ts';
import {
  fromXmlElements,
  jsonGatewayAnswerSchema,
  serializeGatewayAnswer,
  xmlGatewayAnswerSchema,
  type GatewayAnswer,
} from './answer.ts';
import { readGatewayRequest } from './read-request.ts';
import {
  parseJsonGatewayRequest,
  parseXmlGatewayRequest,
  serializeGatewayRequest,
  type GatewayFormat,
  type GatewayRequest,
} from './request.ts';
import { parseXml } from './xml.ts';

/** License-service side: the form body `data=<url-encoded base64(aes256(JSON or XML))>`. */
export function encodeGatewayRequest(request: GatewayRequest, siteKey: SiteKeyInput): string {
  const key = toAesKey(siteKey);
  const format = request?.format;
  if (format !== 'json' && format !== 'xml') {
    throw new SiteKitError(
      'INVALID_GATEWAY_REQUEST',
      `request.format: must be "json" or "xml", got ${JSON.stringify(format)}.`,
    );
  }
  const { format: _format, ...fields } = request;
  const parsed =
    format === 'json'
      ? parseJsonGatewayRequest(fields)
      : parseXmlGatewayRequest({
          USERID: fields.user_id,
          CID: fields.cid,
          ...(fields.oid === undefined ? {} : { OID: fields.oid }),
          NONCE: fields.nonce,
        });
  if (!parsed.success) {
    throw new SiteKitError(
      'INVALID_GATEWAY_REQUEST',
      `The gateway request breaks the spec: ${describeIssues(parsed.error, 'request')}.`,
    );
  }
  return formatDataParameter(encryptWithKey(serializeGatewayRequest(parsed.data), key));
}

/**
 * Gateway side, without the HTTP handler: reads a request body (form or bare base64). Throws
 * SiteKitError INVALID_GATEWAY_REQUEST, INVALID_BASE64 or DECRYPT_FAILED.
 */
export function decodeGatewayRequest(body: string, siteKey: SiteKeyInput): GatewayRequest {
  const key = toAesKey(siteKey);
  const data = typeof body === 'string' ? readDataParameter(body) : undefined;
  if (data === undefined) {
    throw new SiteKitError(
      'INVALID_GATEWAY_REQUEST',
      'The body has no `data` parameter: send `data=<url-encoded base64>` or the bare base64 text.',
    );
  }
  const outcome = readGatewayRequest(data, key);
  if (outcome.ok) return outcome.request;
  if (outcome.stage === 'invalid')
    throw new SiteKitError('INVALID_GATEWAY_REQUEST', outcome.reason);
  // Repeat the decryption to surface its own code (INVALID_BASE64 / DECRYPT_FAILED) and sentence.
  decryptWithKey(data, key);
  throw new SiteKitError(
    'INVALID_GATEWAY_REQUEST',
    `The decrypted request is unusable: ${outcome.reason}.`,
  );
}

/** Gateway side: validates an answer and encrypts it; the result is the HTTP response body. */
export function encodeGatewayAnswer(answer: GatewayAnswer, siteKey: SiteKeyInput): string {
  const key = toAesKey(siteKey);
  const plaintext = serializeGatewayAnswer(answer);
  // The serialized text goes through the reader the license service uses, so what is sent is
  // exactly what decodes.
  checkAnswer(plaintext, answer?.format, 'INVALID_GATEWAY_RESPONSE');
  return encryptWithKey(plaintext, key);
}

/**
 * License-service side: decrypts and validates the gateway's answer (the base64 text it returned).
 * Throws SiteKitError DECRYPT_FAILED / INVALID_BASE64, or INVALID_GATEWAY_RESPONSE with a field path.
 */
export function decodeGatewayResponse(
  body: string,
  format: GatewayFormat,
  siteKey: SiteKeyInput,
): GatewayAnswer {
  const key = toAesKey(siteKey);
  if (typeof body !== 'string') {
    throw new SiteKitError('INVALID_GATEWAY_RESPONSE', 'The gateway answer must be a string.');
  }
  return checkAnswer(decryptWithKey(body.trim(), key), format, 'INVALID_GATEWAY_RESPONSE');
}

function checkAnswer(
  plaintext: string,
  format: GatewayFormat | undefined,
  code: 'INVALID_GATEWAY_RESPONSE',
): GatewayAnswer {
  const text = plaintext.replace(/^\uFEFF/, '').trimStart();
  const isXml = text.startsWith('<');
  if (format !== 'json' && format !== 'xml') {
    throw new SiteKitError(code, `format: must be "json" or "xml", got ${JSON.stringify(format)}.`);
  }
  if (isXml !== (format === 'xml')) {
    throw new SiteKitError(
      code,
      `The gateway answered in ${isXml ? 'XML' : 'JSON (or not XML)'}, but the request was ${format.toUpperCase()}: the answer must use the request's format.`,
    );
  }
  if (format === 'json') {
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      throw new SiteKitError(code, 'The decrypted gateway answer is not JSON.');
    }
    const parsed = jsonGatewayAnswerSchema.safeParse(json);
    if (!parsed.success) {
      throw new SiteKitError(
        code,
        `The JSON gateway answer breaks the spec: ${describeIssues(parsed.error, 'answer')}.`,
      );
    }
    return { format: 'json', ...parsed.data } as GatewayAnswer;
  }
  const doc = parseXml(text);
  if (doc === undefined) {
    throw new SiteKitError(code, 'The decrypted gateway answer is not well-formed XML.');
  }
  const parsed = xmlGatewayAnswerSchema.safeParse(doc['RES']);
  if (!parsed.success) {
    throw new SiteKitError(
      code,
      `The XML gateway answer breaks the old specification: ${describeIssues(parsed.error, 'RES')}.`,
    );
  }
  return fromXmlElements(parsed.data);
}
