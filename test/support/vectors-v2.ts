import { readFileSync } from 'node:fs';
import { join } from 'node:path';

// Built by the license service's public token samples, not by this project (see the file's `about`).
const file = join(import.meta.dirname, '../fixtures/vectors/license-token-v2-vectors.json');

export interface TokenV2Layout {
  layout: string;
  policy_plaintext: string;
  policy: string;
  hash: string;
  token_json: string;
  token: string;
}

export interface TokenV2Vector extends Omit<TokenV2Layout, 'layout'> {
  name: string;
  drm_type: 'NCG' | 'Widevine' | 'PlayReady' | 'FairPlay';
  user_id: string;
  cid: string;
  other_layouts?: TokenV2Layout[];
}

export const vectorsV2 = JSON.parse(readFileSync(file, 'utf8')) as {
  common: { site_id: string; site_key: string; access_key: string; timestamp: string };
  vectors: TokenV2Vector[];
};
