import type { WebHandler } from '../http/web.ts';
import { createTokenIssuer } from '../token/issuer.ts';
import { createLicenseProxyWith } from './handler.ts';
import { nodeTransport } from './node-transport.ts';
import type { LicenseProxyOptions } from './options.ts';

// The proxy on node:crypto and node:http (Node, Bun, Deno); web-proxy.ts has the same name on Web
// Crypto and fetch, and package.json's export conditions choose between them.

/**
 * The site's license proxy (see LicenseProxyOptions); issues with the synchronous issuer and calls
 * the service over node:http(s) unless the site gives its own `fetch`.
 */
export function createLicenseProxy(options: LicenseProxyOptions): WebHandler {
  return createLicenseProxyWith(createTokenIssuer, options, nodeTransport);
}
