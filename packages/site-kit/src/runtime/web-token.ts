import { encryptWith, decryptWith } from '../crypto/async-aes.ts';
import { webCrypto } from '../crypto/web-crypto.ts';
import type { SiteKeyInput } from '../crypto/site-key.ts';
import { createTokenHandlerWith, type TokenHandlerOptions } from '../http/token-handler.ts';
import type { WebHandler } from '../http/web.ts';
import {
  createAsyncTokenIssuer,
  createLicenseTokenWith,
  type AsyncTokenIssuer,
} from '../token/async-issuer.ts';
import { createAsyncTokenVerifier, type AsyncTokenVerifier } from '../token/async-verifier.ts';
import type { IssueOptions } from '../token/issue-rules.ts';
import type { SiteCredentials } from '../token/keys.ts';
import type { VerifiedLicenseToken, VerifyOptions } from '../token/verify-rules.ts';

// The token side's functions on Web Crypto (Workers, edge functions, browsers): node-token.ts's
// names, with the same results; package.json's export conditions choose between them.

/** The site's token endpoint (see TokenHandlerOptions), issuing on Web Crypto. */
export function createTokenHandler(options: TokenHandlerOptions): WebHandler {
  return createTokenHandlerWith((site) => createAsyncTokenIssuer(webCrypto, site), options);
}

/** The async twin of `createTokenIssuer`: `issue` and `preparePolicy` return promises. */
export function createTokenIssuerAsync(options: SiteCredentials): AsyncTokenIssuer {
  return createAsyncTokenIssuer(webCrypto, options);
}

/** The async twin of `createLicenseToken`. */
export function createLicenseTokenAsync(options: SiteCredentials & IssueOptions): Promise<string> {
  return createLicenseTokenWith(webCrypto, options);
}

/** The async twin of `createTokenVerifier`: `verify` returns a promise. */
export function createTokenVerifierAsync(options: Omit<VerifyOptions, 'now'>): AsyncTokenVerifier {
  return createAsyncTokenVerifier(webCrypto, options);
}

/** The async twin of `verifyLicenseToken`. */
export async function verifyLicenseTokenAsync(
  token: string,
  options: VerifyOptions,
): Promise<VerifiedLicenseToken> {
  const verifier = createAsyncTokenVerifier(webCrypto, options);
  return verifier.verify(token, { now: options.now ?? Date.now() });
}

/** The async twin of `encrypt`. */
export function encryptAsync(plaintext: string, siteKey: SiteKeyInput): Promise<string> {
  return encryptWith(webCrypto, plaintext, siteKey);
}

/** The async twin of `decrypt`. */
export function decryptAsync(ciphertext: string, siteKey: SiteKeyInput): Promise<string> {
  return decryptWith(webCrypto, ciphertext, siteKey);
}
