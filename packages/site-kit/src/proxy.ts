// @multidrm/site-kit/proxy on Node, Bun and Deno (node:crypto): the site's license proxy. Workers
// and browsers get web/proxy.ts.
export * from './proxy/common.ts';
export { createLicenseProxy } from './proxy/node-proxy.ts';
