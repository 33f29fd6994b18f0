// The hand-written gateway the benches measure site-kit's against: decrypt the form's `data`,
// answer its nonce with a fixed policy, encrypt. The spec's crypto and nothing else: no checks.
import { createCipheriv, createDecipheriv, createSecretKey } from 'node:crypto';

const IV = Buffer.from('0123456789abcdef');

/** The answer (base64 ciphertext) to a gateway body's form text, under `siteKey`. */
export function handGatewayAnswer(siteKey: string): (body: string) => string {
  const key = createSecretKey(Buffer.from(siteKey));
  return (body) => {
    const data = new URLSearchParams(body).get('data') ?? '';
    const d = createDecipheriv('aes-256-cbc', key, IV);
    const plain = Buffer.concat([d.update(data, 'base64'), d.final()]).toString();
    const { nonce } = JSON.parse(plain) as { nonce: string };
    const answer = JSON.stringify({
      error_code: '0000',
      error_message: 'success',
      playback_policy: { limit: true, duration: 86400 },
      nonce,
    });
    const c = createCipheriv('aes-256-cbc', key, IV);
    return Buffer.concat([c.update(answer), c.final()]).toString('base64');
  };
}
