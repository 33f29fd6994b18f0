// What `@multidrm/site-kit/gateway` exports in every runtime; ../gateway.ts and ../web/gateway.ts
// add the functions whose crypto differs.
export { SiteKitError, type SiteKitErrorCode } from '../errors.ts';
export { SITE_KEY_BYTES, type SiteKeyInput } from '../crypto/site-key.ts';
export { type GatewayFormat, type GatewayRequest } from '../gateway/request.ts';
export {
  SUCCESS_CODE,
  answerNonce,
  type GatewayAnswer,
  type JsonGatewayAnswer,
  type XmlGatewayAnswer,
} from '../gateway/answer.ts';
export {
  readCustomDataEnvelope,
  type CustomDataOptions,
  type CustomDataEnvelope,
  type ParsedCustomData,
} from '../custom-data/custom-data-rules.ts';
export { type GatewayHandlerOptions } from '../gateway/handler.ts';
export { GatewayResponseError, type AnswerProblem } from '../gateway/answer-error.ts';
export { type GatewayDecision, type XmlExtras } from '../gateway/decision.ts';
export {
  GATEWAY_ERROR_CODES,
  GATEWAY_ERROR_MESSAGES,
  type GatewayErrorCode,
  type GatewayErrorKind,
} from '../gateway/codes.ts';
export { type GatewayEvent, type GatewayEventListener } from '../gateway/events.ts';
export { type CustomDataHandlerOptions, type CustomDataGrant } from '../custom-data/handler.ts';
export {
  type AuthorizeContext,
  type SiteEndpointCommonOptions,
  type SiteEndpointEvent,
  type SiteRefusal,
} from '../http/site-endpoint.ts';
export { type RequestGuardOptions } from '../http/request-guard.ts';
export { type PlayerRequest } from '../http/site-request.ts';
export { CUSTOM_DATA_HEADER, type CorsOptions } from '../http/cors.ts';
export { DEFAULT_MAX_BODY_BYTES } from '../http/body.ts';
export { type WebHandler } from '../http/web.ts';
