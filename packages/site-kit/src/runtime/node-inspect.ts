import { nodeCrypto } from '../crypto/node-async-crypto.ts';
import {
  inspectTokenWith,
  type InspectOptions,
  type TokenInspection,
} from '../token/inspect-report.ts';

/**
 * Reads a token and, given both keys, verifies it on node:crypto, answering a report instead of
 * throwing: every field, which hash reading matches, the validity window, the decrypted policy, or
 * the error with the license service's refusal code. For consoles and debugging pages.
 */
export function inspectLicenseTokenAsync(
  token: string,
  options: InspectOptions = {},
): Promise<TokenInspection> {
  return inspectTokenWith(nodeCrypto, token, options);
}
