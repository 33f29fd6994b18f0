// What `@multidrm/site-kit/proxy` exports in every runtime; ../proxy.ts and ../web/proxy.ts add
// createLicenseProxy on their crypto.
export { SiteKitError, type SiteKitErrorCode } from '../errors.ts';
export { type LicenseProxyOptions, type ProxyAsk, type ProxyDecision } from './options.ts';
export { type ProxyCorsOptions } from './cors.ts';
export { type ProxyDrmType } from './drm.ts';
export { type ProxyErrorCode, type ProxyErrorBody } from './errors.ts';
export {
  type LicenseProxyEvent,
  type ProxyEventListener,
  type ProxyRequestKind,
} from './events.ts';
export { type TokenGrant } from '../http/token-handler.ts';
export { type SiteRefusal } from '../http/site-endpoint.ts';
export { CUSTOM_DATA_HEADER } from '../http/cors.ts';
export { type WebHandler } from '../http/web.ts';
