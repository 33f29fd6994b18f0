import { readFileSync } from 'node:fs';
import { join } from 'node:path';

// Computed independently of this project; shared with every package's tests.
const file = join(import.meta.dirname, '../fixtures/vectors/license-service-vectors.json');

export interface AesVector {
  name: string;
  key: string;
  plaintext: string;
  ciphertext: string;
}
export interface TokenVector {
  name: string;
  site_id: string;
  site_key: string;
  access_key: string;
  drm_type: 'NCG' | 'Widevine' | 'PlayReady' | 'FairPlay';
  user_id: string;
  cid: string;
  timestamp: string;
  token_data: string;
  expected: {
    token_field: string;
    hash_string_sha256_hex_upper: string;
    hash: string;
    token: string;
    hash_raw_digest: string;
    token_raw_digest: string;
  };
}
export interface GatewayVector {
  name: string;
  format: 'json' | 'xml';
  direction: 'request' | 'response';
  site_key: string;
  plaintext: string;
  ciphertext: string;
  form_body: string;
}

export const vectors = JSON.parse(readFileSync(file, 'utf8')) as {
  aes: AesVector[];
  token: TokenVector[];
  gateway: GatewayVector[];
};

export function gatewayVector(
  format: 'json' | 'xml',
  direction: 'request' | 'response',
): GatewayVector {
  const found = vectors.gateway.find((v) => v.format === format && v.direction === direction);
  if (!found) throw new Error(`no ${format} ${direction} gateway vector`);
  return found;
}
