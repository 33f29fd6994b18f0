import { webCrypto } from '../crypto/web-crypto.ts';
import type { WebHandler } from '../http/web.ts';
import { createAsyncTokenIssuer } from '../token/async-issuer.ts';
import { createLicenseProxyWith } from './handler.ts';
import type { LicenseProxyOptions } from './options.ts';

// The proxy on Web Crypto (Workers, edge functions): node-proxy.ts's name, with the same results.

/** The site's license proxy (see LicenseProxyOptions), issuing on Web Crypto. */
export function createLicenseProxy(options: LicenseProxyOptions): WebHandler {
  return createLicenseProxyWith((site) => createAsyncTokenIssuer(webCrypto, site), options);
}
