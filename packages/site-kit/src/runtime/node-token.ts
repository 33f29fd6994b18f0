import { encryptWith, decryptWith } from '../crypto/async-aes.ts';
import { nodeCrypto } from '../crypto/node-async-crypto.ts';
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
import { createTokenIssuer } from '../token/issuer.ts';
import type { SiteCredentials } from '../token/keys.ts';
import type { VerifiedLicenseToken, VerifyOptions } from '../token/verify-rules.ts';

// The token side's functions on node:crypto (Node, Bun, Deno). web-token.ts has the same names on
// Web Crypto; package.json's export conditions choose between them.

/** The site's token endpoint (see TokenHandlerOptions); issues with the synchronous issuer. */
export function createTokenHandler(options: TokenHandlerOptions): WebHandler {
  return createTokenHandlerWith(createTokenIssuer, options);
}

/** The async twin of `createTokenIssuer`: `issue` and `preparePolicy` return promises. */
export function createTokenIssuerAsync(options: SiteCredentials): AsyncTokenIssuer {
  return createAsyncTokenIssuer(nodeCrypto, options);
}

/** The async twin of `createLicenseToken`. */
export function createLicenseTokenAsync(options: SiteCredentials & IssueOptions): Promise<string> {
  return createLicenseTokenWith(nodeCrypto, options);
}

/** The async twin of `createTokenVerifier`: `verify` returns a promise. */
export function createTokenVerifierAsync(options: Omit<VerifyOptions, 'now'>): AsyncTokenVerifier {
  return createAsyncTokenVerifier(nodeCrypto, options);
}

/** The async twin of `verifyLicenseToken`. */
export async function verifyLicenseTokenAsync(
  token: string,
  options: VerifyOptions,
): Promise<VerifiedLicenseToken> {
  const verifier = createAsyncTokenVerifier(nodeCrypto, options);
  return verifier.verify(token, { now: options.now ?? Date.now() });
}

/** The async twin of `encrypt`. */
export function encryptAsync(plaintext: string, siteKey: SiteKeyInput): Promise<string> {
  return encryptWith(nodeCrypto, plaintext, siteKey);
}

/** The async twin of `decrypt`. */
export function decryptAsync(ciphertext: string, siteKey: SiteKeyInput): Promise<string> {
  return decryptWith(nodeCrypto, ciphertext, siteKey);
}
