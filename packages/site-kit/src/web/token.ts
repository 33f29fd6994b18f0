// @multidrm/site-kit/token where there is no node:crypto (export conditions workerd, edge-light,
// browser): the async API on Web Crypto. The synchronous functions of the Node entry are not here.
export * from '../exports/token-common.ts';
export {
  createTokenHandler,
  createTokenIssuerAsync,
  createLicenseTokenAsync,
  createTokenVerifierAsync,
  verifyLicenseTokenAsync,
} from '../runtime/web-token.ts';
export { inspectLicenseTokenAsync } from '../runtime/web-inspect.ts';
