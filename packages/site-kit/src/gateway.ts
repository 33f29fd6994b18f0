// @multidrm/site-kit/gateway on Node, Bun and Deno (node:crypto): the gateway callback, its codec
// and gateway-mode custom data. Workers and browsers get web/gateway.ts.
export * from './exports/gateway-common.ts';
export {
  encodeGatewayRequest,
  decodeGatewayRequest,
  encodeGatewayAnswer,
  decodeGatewayResponse,
} from './gateway/codec.ts';
export { createCustomData, parseCustomData } from './custom-data/custom-data.ts';
export {
  createGatewayHandler,
  createCustomDataHandler,
  createCustomDataAsync,
  parseCustomDataAsync,
  encodeGatewayRequestAsync,
  decodeGatewayRequestAsync,
  encodeGatewayAnswerAsync,
  decodeGatewayResponseAsync,
} from './runtime/node-gateway.ts';
