import type { AsyncCrypto } from '../crypto/async-crypto.ts';
import { damaged } from '../crypto/cbc-rules.ts';
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
import { readGatewayRequest } from './read-request.ts';
import type { GatewayFormat, GatewayRequest } from './request.ts';

// The codec's four functions on the given crypto; the same texts and errors as codec.ts.

export async function encodeGatewayRequestWith<K>(
  crypto: AsyncCrypto<K>,
  request: GatewayRequest,
  siteKey: SiteKeyInput,
): Promise<string> {
  const key = crypto.key(siteKey);
  return formatDataParameter(await crypto.encrypt(gatewayRequestText(request), key));
}

export async function decodeGatewayRequestWith<K>(
  crypto: AsyncCrypto<K>,
  body: string,
  siteKey: SiteKeyInput,
): Promise<GatewayRequest> {
  const key = crypto.key(siteKey);
  const data = requestData(body);
  const outcome = await readGatewayRequest(crypto, data, key);
  if (outcome.ok) return outcome.request;
  if (outcome.stage === 'invalid') throw invalidRequest(outcome);
  // Opened again to surface the decryption's own code (INVALID_BASE64 / DECRYPT_FAILED).
  const opened = await crypto.open(data, key);
  if (!opened.intact) throw damaged();
  throw unusableRequest(outcome.reason);
}

export async function encodeGatewayAnswerWith<K>(
  crypto: AsyncCrypto<K>,
  answer: GatewayAnswer,
  siteKey: SiteKeyInput,
): Promise<string> {
  const key = crypto.key(siteKey);
  const plaintext = serializeGatewayAnswer(answer);
  checkAnswer(plaintext, answer?.format);
  return crypto.encrypt(plaintext, key);
}

export async function decodeGatewayResponseWith<K>(
  crypto: AsyncCrypto<K>,
  body: string,
  format: GatewayFormat,
  siteKey: SiteKeyInput,
): Promise<GatewayAnswer> {
  const key = crypto.key(siteKey);
  const opened = await crypto.open(answerBody(body), key);
  if (!opened.intact) throw damaged();
  return checkAnswer(opened.text, format);
}
