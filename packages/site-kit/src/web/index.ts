// @multidrm/site-kit where there is no node:crypto (export conditions workerd, edge-light, browser):
// everything of the token, gateway, proxy and schemas entries, the async API on Web Crypto.
export * from './token.ts';
export * from './gateway.ts';
export * from './proxy.ts';
export * from '../schemas.ts';
export { encryptAsync, decryptAsync } from '../runtime/web-token.ts';
