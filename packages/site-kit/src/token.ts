// @multidrm/site-kit/token on Node, Bun and Deno (node:crypto): license tokens and the token
// endpoint, without the gateway or the XML parser. Workers and browsers get web/token.ts.
export * from './exports/token-common.ts';
export { createTokenIssuer, createLicenseToken, type TokenIssuer } from './token/issuer.ts';
export { createTokenVerifier, verifyLicenseToken, type TokenVerifier } from './token/verifier.ts';
export {
  createTokenHandler,
  createTokenIssuerAsync,
  createLicenseTokenAsync,
  createTokenVerifierAsync,
  verifyLicenseTokenAsync,
} from './runtime/node-token.ts';
export { inspectLicenseTokenAsync } from './runtime/node-inspect.ts';
