import type * as z from 'zod';
import { SiteKitError } from '../errors.ts';
import { readDataParameter } from '../http/form-body.ts';
import { describeIssues } from '../schemas/issues.ts';
import {
  PERIOD_ORDER_MESSAGE,
  fromXmlElements,
  jsonGatewayAnswerSchema,
  xmlGatewayAnswerSchema,
  type GatewayAnswer,
} from './answer.ts';
import type { ReadOutcome } from './read-request.ts';
import { GatewayResponseError, memberPath } from './answer-error.ts';
import {
  parseJsonGatewayRequest,
  parseXmlGatewayRequest,
  serializeGatewayRequest,
  type GatewayFormat,
  type GatewayRequest,
} from './request.ts';
import { parseXml } from './xml.ts';

// The gateway messages without their encryption: what the codec checks before encrypting and after
// decrypting, whichever crypto does that.

/** The plaintext of a request the license service sends, checked against the spec. */
export function gatewayRequestText(request: GatewayRequest): string {
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
  return serializeGatewayRequest(parsed.data);
}

/** The base64 `data` of a request body, or INVALID_GATEWAY_REQUEST. */
export function requestData(body: string): string {
  const data = typeof body === 'string' ? readDataParameter(body) : undefined;
  if (data === undefined) {
    throw new SiteKitError(
      'INVALID_GATEWAY_REQUEST',
      'The body has no `data` parameter: send `data=<url-encoded base64>` or the bare base64 text.',
    );
  }
  return data;
}

/** The error for a request that was read and broke the spec. */
export function invalidRequest(outcome: Extract<ReadOutcome, { stage: 'invalid' }>): SiteKitError {
  return new SiteKitError('INVALID_GATEWAY_REQUEST', outcome.reason);
}

/** The error for a request that decrypted whole and is still neither JSON nor XML. */
export function unusableRequest(reason: string): SiteKitError {
  return new SiteKitError(
    'INVALID_GATEWAY_REQUEST',
    `The decrypted request is unusable: ${reason}.`,
  );
}

/** The answer's text, as the reader on the other side takes it, or INVALID_GATEWAY_RESPONSE. */
export function checkAnswer(plaintext: string, format: GatewayFormat | undefined): GatewayAnswer {
  const code = 'INVALID_GATEWAY_RESPONSE';
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
      throw answerError(
        parsed.error,
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
    throw answerError(
      parsed.error,
      `The XML gateway answer breaks the old specification: ${describeIssues(parsed.error, 'RES')}.`,
    );
  }
  return fromXmlElements(parsed.data);
}

// The first issue decides: the format of a time (the timestamp schema's wording), or its value.
function answerError(error: z.ZodError, message: string): GatewayResponseError {
  const first = error.issues[0];
  const problem = first?.message.startsWith('must have the format')
    ? 'format'
    : first?.message === PERIOD_ORDER_MESSAGE
      ? 'order'
      : 'value';
  return new GatewayResponseError(message, memberPath(first?.path ?? []), problem);
}

/** The answer body's base64, or INVALID_GATEWAY_RESPONSE when it is not text. */
export function answerBody(body: string): string {
  if (typeof body !== 'string') {
    throw new SiteKitError('INVALID_GATEWAY_RESPONSE', 'The gateway answer must be a string.');
  }
  return body.trim();
}
