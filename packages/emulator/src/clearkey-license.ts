import type { ContentKey } from './config.ts';
import { bytesToBase64url, hexToBytes } from './web/bytes.ts';

/** The W3C ClearKey license (a JSON Web Key Set) that a browser's CDM accepts as the update message. */
export interface ClearKeyLicense {
  keys: { kty: 'oct'; kid: string; k: string }[];
  type: 'temporary' | 'persistent-license';
}

const b64url = (hex: string) => bytesToBase64url(hexToBytes(hex));

export function buildClearKeyLicense(
  keys: readonly ContentKey[],
  persistent: boolean,
): ClearKeyLicense {
  return {
    keys: keys.map((k) => ({ kty: 'oct', kid: b64url(k.kid), k: b64url(k.key) })),
    type: persistent ? 'persistent-license' : 'temporary',
  };
}
