import { describe, expect, it } from 'vitest';
import {
  createCustomData,
  decodeGatewayRequest,
  encodeGatewayAnswer,
  type GatewayAnswer,
  type GatewayRequest,
} from '@multidrm/site-kit';
import { createEmulatorHandler } from '../../src/index.ts';
import { allowXml, CID, clearKeyRequest, KEY, KID, LICENSE_PATH, XML_SITE } from '../helpers.ts';

// What the emulator makes of an XML gateway answer: the site's gateway is answered in process
// through the handler's `fetch` option, so each answer is exactly the one under test.

function emulatorAnswering(answer: (request: GatewayRequest) => GatewayAnswer, status = 200) {
  const fetch: typeof globalThis.fetch = async (_url, init) => {
    const request = decodeGatewayRequest(String(init?.body), XML_SITE.siteKey);
    return new Response(encodeGatewayAnswer(answer(request), XML_SITE.siteKey), { status });
  };
  return createEmulatorHandler(
    {
      sites: [{ ...XML_SITE, gatewayUrl: 'http://site.test/drm/gateway', gatewayFormat: 'xml' }],
      keys: { [CID]: { kid: KID, key: KEY } },
    },
    { fetch },
  );
}

async function licenseAnswer(handler: ReturnType<typeof emulatorAnswering>) {
  const customData = createCustomData({
    siteId: XML_SITE.siteId,
    siteKey: XML_SITE.siteKey,
    drmType: 'Widevine',
    userId: 'u',
    cid: CID,
  });
  const response = await handler(
    new Request(`http://emulator.test${LICENSE_PATH}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-drm-custom-data': customData },
      body: clearKeyRequest(KID),
    }),
  );
  const id = response.headers.get('x-drm-request-id');
  const events = handler.events.recent().filter((e) => e.requestId === id);
  return { status: response.status, events };
}

async function issuedPolicy(handler: ReturnType<typeof emulatorAnswering>): Promise<unknown> {
  const { status, events } = await licenseAnswer(handler);
  expect(status).toBe(200);
  const issued = events.find((e) => e.type === 'license-issued');
  return issued?.type === 'license-issued' ? issued.policy : undefined;
}

async function denial(handler: ReturnType<typeof emulatorAnswering>) {
  const { events } = await licenseAnswer(handler);
  return {
    denied: events.find((e) => e.type === 'license-denied'),
    answered: events.find((e) => e.type === 'callback-answered'),
  };
}

describe('an XML gateway answer', () => {
  it('without LIMIT grants an unlimited license', async () => {
    const { LIMIT: _limit, ...withoutLimit } = allowXml({ nonce: '' } as GatewayRequest) as Extract<
      GatewayAnswer,
      { format: 'xml' }
    >;
    const handler = emulatorAnswering((request) => ({ ...withoutLimit, NONCE: request.nonce }));
    expect(await issuedPolicy(handler)).toMatchObject({ limit: false });
  });

  it('with LIMIT N grants an unlimited license, with LIMIT Y a limited one', async () => {
    expect(await issuedPolicy(emulatorAnswering((r) => allowXml(r)))).toMatchObject({
      limit: false,
    });
    const limited = emulatorAnswering((r) =>
      allowXml(r, { LIMIT: 'Y', PD_END: '2999-01-01T00:00:00Z' }),
    );
    expect(await issuedPolicy(limited)).toMatchObject({ limit: true });
  });
});

describe('a gateway answer that refuses or fails', () => {
  it.each(['0001', '0002', '1001', '2000', '9999'])(
    'is a refusal for any code but 0000 (%s), with the code',
    async (code) => {
      const handler = emulatorAnswering((r) => allowXml(r, { ERROR: code, ERRMSG: 'no' }));
      const { denied, answered } = await denial(handler);
      expect(denied).toMatchObject({ reason: 'GATEWAY_DENIED' });
      expect(answered).toMatchObject({ ok: false, siteErrorCode: code });
    },
  );

  it.each([300, 302, 399, 400])(
    'with HTTP %i is a failed callback even with a valid answer in its body',
    async (status) => {
      const { denied, answered } = await denial(emulatorAnswering((r) => allowXml(r), status));
      expect(denied).toMatchObject({ reason: 'GATEWAY_BAD_STATUS' });
      expect(answered).toMatchObject({ ok: false, httpStatus: status });
    },
  );
});
