import { describe, expect, it } from 'vitest';
import { createCustomData, createLicenseToken } from '@multidrm/site-kit';
import { createEmulatorHandler, type FlowEvent } from '../../src/index.ts';
import { CID, clearKeyRequest, JSON_SITE, KEY, KID, LICENSE_PATH, TOKEN_SITE } from '../helpers.ts';

// Refusals whose facts depend on the config or on the mode: the hash reading the emulator was told
// to expect, and custom data (gateway mode) for a site it does not know.

async function ask(
  handler: ReturnType<typeof createEmulatorHandler>,
  customData: string,
): Promise<{ body: Record<string, unknown>; denied: FlowEvent | undefined }> {
  const response = await handler(
    new Request(`http://emulator.test${LICENSE_PATH}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-drm-custom-data': customData },
      body: clearKeyRequest(KID),
    }),
  );
  const id = response.headers.get('x-drm-request-id');
  const body = (await response.json()) as Record<string, unknown>;
  const denied = handler.events
    .recent()
    .find((e) => e.requestId === id && e.type === 'license-denied');
  return { body, denied };
}

describe('refusal facts', () => {
  it("name the hash reading the config expects ('raw-digest'), not the default", async () => {
    const handler = createEmulatorHandler({
      sites: [TOKEN_SITE],
      keys: { [CID]: { kid: KID, key: KEY } },
      hashEncoding: 'raw-digest',
      dialect: 'explain',
    });
    const token = createLicenseToken({ ...TOKEN_SITE, hashEncoding: 'hex-text', cid: CID });
    const { denied } = await ask(handler, token);
    expect(denied).toMatchObject({
      reason: 'HASH_MISMATCH',
      facts: { expectedReading: 'raw-digest', matchedReading: 'hex-text', version: 1 },
    });
  });

  it('refuse custom data for a site the emulator does not know as UNKNOWN_SITE', async () => {
    const handler = createEmulatorHandler({
      sites: [{ ...JSON_SITE, gatewayUrl: 'http://gateway.test/drm' }],
      keys: { [CID]: { kid: KID, key: KEY } },
      dialect: 'explain',
    });
    const customData = createCustomData({
      siteId: 'ELSEWHERE',
      siteKey: JSON_SITE.siteKey,
      drmType: 'Widevine',
      userId: 'u',
      cid: CID,
    });
    const { body, denied } = await ask(handler, customData);
    expect(denied).toMatchObject({ reason: 'UNKNOWN_SITE', field: 'custom_data.site_id' });
    expect(body['message']).toMatch(/custom data is for site "ELSEWHERE"/);
  });
});
