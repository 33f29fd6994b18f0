import { readFileSync } from 'node:fs';

// The shared vectors were computed independently of this project (see their "about" member).
const file = new URL('../../../../../shared/vectors/license-service-vectors.json', import.meta.url);

export interface GatewayVector {
  name: string;
  format: 'json' | 'xml';
  direction: 'request' | 'response';
  site_key: string;
  plaintext: string;
  ciphertext: string;
  form_body: string;
}

export const gatewayVectors = (
  JSON.parse(readFileSync(file, 'utf8')) as { gateway: GatewayVector[] }
).gateway;

export function gatewayVector(format: 'json' | 'xml', direction: 'request' | 'response') {
  const found = gatewayVectors.find((v) => v.format === format && v.direction === direction);
  if (!found) throw new Error(`no ${format} ${direction} gateway vector`);
  return found;
}
