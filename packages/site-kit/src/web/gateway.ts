// @multidrm/site-kit/gateway where there is no node:crypto (export conditions workerd, edge-light,
// browser): the async API on Web Crypto. The synchronous functions of the Node entry are not here.
export * from '../exports/gateway-common.ts';
export {
  createGatewayHandler,
  createCustomDataHandler,
  createCustomDataAsync,
  parseCustomDataAsync,
  encodeGatewayRequestAsync,
  decodeGatewayRequestAsync,
  encodeGatewayAnswerAsync,
  decodeGatewayResponseAsync,
} from '../runtime/web-gateway.ts';
