import type { ContentKey } from './config.ts';
import { bytesToBase64url, hexToBytes } from './web/bytes.ts';

/** The W3C ClearKey license (a JSON Web Key Set) that a browser's CDM accepts as the update message. */
export interface ClearKeyLicense {
  keys: { kty: 'oct'; kid: string; k: string }[];
  type: 'temporary' | 'persistent-license';
}

type Jwk = ClearKeyLicense['keys'][number];

const b64url = (hex: string) => bytesToBase64url(hexToBytes(hex));

// The configured keys are the same objects for every license: each one's JWK is written once (and
// again if the key's hex was changed in place). A site's external keys are new objects per token.
const jwks = new WeakMap<ContentKey, { kid: string; key: string; jwk: Jwk }>();

function jwkOf(key: ContentKey): Jwk {
  const known = jwks.get(key);
  if (known !== undefined && known.kid === key.kid && known.key === key.key) return known.jwk;
  const jwk: Jwk = Object.freeze({ kty: 'oct', kid: b64url(key.kid), k: b64url(key.key) });
  jwks.set(key, { kid: key.kid, key: key.key, jwk });
  return jwk;
}

export function buildClearKeyLicense(
  keys: readonly ContentKey[],
  persistent: boolean,
): ClearKeyLicense {
  return {
    keys: keys.map(jwkOf),
    type: persistent ? 'persistent-license' : 'temporary',
  };
}
