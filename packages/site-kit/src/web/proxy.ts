// @multidrm/site-kit/proxy where there is no node:crypto (export conditions workerd, edge-light,
// browser): the license proxy issuing its tokens on Web Crypto.
export * from '../proxy/common.ts';
export { createLicenseProxy } from '../proxy/web-proxy.ts';
