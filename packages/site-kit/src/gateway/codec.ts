import { decryptWithKey, encryptWithKey, openWithKey } from '../crypto/aes.ts';
import { toAesKey } from '../crypto/aes-key.ts';
import type { SiteKeyInput } from '../crypto/site-key.ts';
import { formatDataParameter } from '../http/form-body.ts';
import { serializeGatewayAnswer, type GatewayAnswer } from './answer.ts';
import {
  answerBody,
  checkAnswer,
  gatewayRequestText,
  invalidRequest,
  requestData,
  unusableRequest,
} from './codec-rules.ts';
import { readGatewayRequestSync } from './read-request.ts';
import type { GatewayFormat, GatewayRequest } from './request.ts';

/** License-service side: the form body `data=<url-encoded base64(aes256(JSON or XML))>`. */
export function encodeGatewayRequest(request: GatewayRequest, siteKey: SiteKeyInput): string {
  const key = toAesKey(siteKey);
  return formatDataParameter(encryptWithKey(gatewayRequestText(request), key));
}

/**
 * Gateway side, without the HTTP handler: reads a request body (form or bare base64). Throws
 * SiteKitError INVALID_GATEWAY_REQUEST, INVALID_BASE64 or DECRYPT_FAILED.
 */
export function decodeGatewayRequest(body: string, siteKey: SiteKeyInput): GatewayRequest {
  const key = toAesKey(siteKey);
  const data = requestData(body);
  const outcome = readGatewayRequestSync(() => openWithKey(data, key));
  if (outcome.ok) return outcome.request;
  if (outcome.stage === 'invalid') throw invalidRequest(outcome);
  // Repeat the decryption to surface its own code (INVALID_BASE64 / DECRYPT_FAILED) and sentence.
  decryptWithKey(data, key);
  throw unusableRequest(outcome.reason);
}

/** Gateway side: validates an answer and encrypts it; the result is the HTTP response body. */
export function encodeGatewayAnswer(answer: GatewayAnswer, siteKey: SiteKeyInput): string {
  const key = toAesKey(siteKey);
  const plaintext = serializeGatewayAnswer(answer);
  // The serialized text goes through the reader the license service uses, so what is sent is
  // exactly what decodes.
  checkAnswer(plaintext, answer?.format);
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
  return checkAnswer(decryptWithKey(answerBody(body), key), format);
}
