import { webCrypto } from '../crypto/web-crypto.ts';
import type { SiteKeyInput } from '../crypto/site-key.ts';
import { createCustomDataWith, parseCustomDataWith } from '../custom-data/async-custom-data.ts';
import type { CustomDataOptions, ParsedCustomData } from '../custom-data/custom-data-rules.ts';
import {
  createCustomDataHandlerWith,
  type CustomDataHandlerOptions,
} from '../custom-data/handler.ts';
import type { GatewayAnswer } from '../gateway/answer.ts';
import {
  decodeGatewayRequestWith,
  decodeGatewayResponseWith,
  encodeGatewayAnswerWith,
  encodeGatewayRequestWith,
} from '../gateway/async-codec.ts';
import { createGatewayHandlerWith, type GatewayHandlerOptions } from '../gateway/handler.ts';
import type { GatewayFormat, GatewayRequest } from '../gateway/request.ts';
import type { WebHandler } from '../http/web.ts';

// The gateway side's functions on Web Crypto (Workers, edge functions, browsers): node-gateway.ts's
// names, with the same results; package.json's export conditions choose between them.

/** The site's gateway page: a web-standard handler the license service calls back. */
export function createGatewayHandler(options: GatewayHandlerOptions): WebHandler {
  return createGatewayHandlerWith(webCrypto, options);
}

/**
 * The endpoint that hands gateway-mode custom data to the player: the same protocol and authorize
 * shape as the token endpoint, answered by the custom data string as text/plain.
 */
export function createCustomDataHandler(options: CustomDataHandlerOptions): WebHandler {
  return createCustomDataHandlerWith(webCrypto, options);
}

/** The async twin of `createCustomData`. */
export function createCustomDataAsync(options: CustomDataOptions): Promise<string> {
  return createCustomDataWith(webCrypto, options);
}

/** The async twin of `parseCustomData`. */
export function parseCustomDataAsync(
  value: string,
  options: { siteKey: SiteKeyInput },
): Promise<ParsedCustomData> {
  return parseCustomDataWith(webCrypto, value, options);
}

/** The async twin of `encodeGatewayRequest`. */
export function encodeGatewayRequestAsync(
  request: GatewayRequest,
  siteKey: SiteKeyInput,
): Promise<string> {
  return encodeGatewayRequestWith(webCrypto, request, siteKey);
}

/** The async twin of `decodeGatewayRequest`. */
export function decodeGatewayRequestAsync(
  body: string,
  siteKey: SiteKeyInput,
): Promise<GatewayRequest> {
  return decodeGatewayRequestWith(webCrypto, body, siteKey);
}

/** The async twin of `encodeGatewayAnswer`. */
export function encodeGatewayAnswerAsync(
  answer: GatewayAnswer,
  siteKey: SiteKeyInput,
): Promise<string> {
  return encodeGatewayAnswerWith(webCrypto, answer, siteKey);
}

/** The async twin of `decodeGatewayResponse`. */
export function decodeGatewayResponseAsync(
  body: string,
  format: GatewayFormat,
  siteKey: SiteKeyInput,
): Promise<GatewayAnswer> {
  return decodeGatewayResponseWith(webCrypto, body, format, siteKey);
}
