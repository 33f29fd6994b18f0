import { createCipheriv } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createEmulatorHandler } from '../../src/index.ts';
import { CID, clearKeyRequest, JSON_SITE, KEY, KID, LICENSE_PATH } from '../helpers.ts';

// Custom data whose user data parses as JSON but does not unpad was not made by the site with its
// key and PKCS#7: the emulator refuses it as DECRYPT_FAILED (the one answer for every custom data
// that does not open), never reads the JSON. Built by hand with node:crypto and no padding.

function customDataOf(plain: Buffer): string {
  const cipher = createCipheriv('aes-256-cbc', Buffer.from(JSON_SITE.siteKey), '0123456789abcdef');
  cipher.setAutoPadding(false);
  const data = Buffer.concat([cipher.update(plain), cipher.final()]).toString('base64');
  const envelope = { drm_type: 'Widevine', site_id: JSON_SITE.siteId, data };
  return Buffer.from(JSON.stringify(envelope)).toString('base64');
}

async function outcome(customData: string): Promise<string | undefined> {
  const handler = createEmulatorHandler(
    {
      sites: [{ ...JSON_SITE, gatewayUrl: 'http://site.test/drm/gateway' }],
      keys: { [CID]: { kid: KID, key: KEY } },
    },
    // A callback would mean the data opened: answer it with a failure the test can tell apart.
    { fetch: async () => new Response('', { status: 500 }) },
  );
  const response = await handler(
    new Request(`http://emulator.test${LICENSE_PATH}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-drm-custom-data': customData },
      body: clearKeyRequest(KID),
    }),
  );
  const id = response.headers.get('x-drm-request-id');
  const denied = handler.events
    .recent()
    .find((e) => e.requestId === id && e.type === 'license-denied');
  return denied?.type === 'license-denied' ? denied.reason : undefined;
}

describe('custom data that parses but does not unpad', () => {
  const inner = Buffer.from(JSON.stringify({ user_id: 'u', cid: CID })); // 31 bytes

  it('opens when padded (the construction is right): the gateway is called', async () => {
    const padded = Buffer.concat([inner, Buffer.alloc(1, 1)]);
    expect(await outcome(customDataOf(padded))).toBe('GATEWAY_BAD_STATUS');
  });

  it('is DECRYPT_FAILED with a space where the padding should be', async () => {
    const unpadded = Buffer.concat([inner, Buffer.from(' ')]);
    expect(await outcome(customDataOf(unpadded))).toBe('DECRYPT_FAILED');
  });
});
