// Your player integration against the license service's real checks: vitest + happy-dom + msw.
import { licenseServiceHandlers, siteHandlers } from '@multidrm/emulator/msw';
import { attachLicenseAuth, findLicenseAuthError } from '@multidrm/player';
import { setupServer } from 'msw/node';
import shakaModule from 'shaka-player';
import { afterAll, afterEach, beforeAll, expect, test } from 'vitest';

const shaka = shakaModule as unknown as typeof import('shaka-player').default;
shaka.polyfill.installAll();
const site = { siteId: 'MYSITE', siteKey: 'my-32-character-site-key-0123456', accessKey: 'my-key' };
const content = { cid: 'movie', kid: '3cd8f6214d7f9677f0b076ca18df2502' }; // kid in base64url:
const kids = ['PNj2IU1_lnfwsHbKGN8lAg']; // what the CDM's ClearKey license request names
const service = licenseServiceHandlers({
  sites: [{ ...site, gatewayUrl: `${location.origin}/drm/gateway` }],
  keys: { [content.cid]: { kid: content.kid, key: 'b01284a7e8e8e5fd81ded212940c7c62' } },
});
const endpoints = siteHandlers({ site, baseUrl: location.origin }); // token, custom data, gateway
const server = setupServer(...service, ...endpoints);
beforeAll(() => server.listen({ onUnhandledFrame: 'error' }));
afterEach(() => service.faults.clear());
afterAll(() => server.close());

/** A player set up as the app does, and the license request its DRM engine sends for the key. */
function askLicense(endpoint: { tokenUrl: string } | { customDataUrl: string }) {
  const player = new shaka.Player();
  attachLicenseAuth(player, {
    contentId: content.cid,
    ...endpoint,
    licenseServer: { 'org.w3.clearkey': service.licenseUrl },
    header: service.config.customDataHeader,
  });
  const net = shaka.net.NetworkingEngine;
  const request = net.makeRequest([service.licenseUrl], net.defaultRetryParameters());
  Object.assign(request, { method: 'POST', licenseRequestType: 'license-request' });
  request.body = new TextEncoder().encode(JSON.stringify({ kids, type: 'temporary' }));
  request.drmInfo = { keySystem: 'org.w3.clearkey' } as typeof request.drmInfo;
  return player.getNetworkingEngine()!.request(net.RequestType.LICENSE, request).promise;
}
const refusals = () =>
  service.events.recent().flatMap((e) => (e.type === 'license-denied' ? [e.errorCode] : []));
const license = async (answer: Promise<{ data: ArrayBuffer | ArrayBufferView }>) =>
  JSON.parse(new TextDecoder().decode((await answer).data)) as { keys: { k: string }[] };

test('a token from the site gets a ClearKey license', async () => {
  expect((await license(askLicense({ tokenUrl: endpoints.tokenUrl }))).keys).toHaveLength(1);
});

test('after 7011 the player fetches one fresh token, and the license comes', async () => {
  service.faults.set([{ fault: 'token-expired', times: 1 }]);
  const before = refusals().length;
  expect((await license(askLicense({ tokenUrl: endpoints.tokenUrl }))).keys).toHaveLength(1);
  expect(refusals().slice(before)).toEqual(['7011']);
});

test("a gateway refusal reaches the app as 8002 with the site's own code", async () => {
  service.faults.set([{ fault: 'gateway-refusal', siteCode: '4031', message: 'No subscription' }]);
  const failure = await askLicense({ customDataUrl: endpoints.customDataUrl }).catch((e) => e);
  expect(findLicenseAuthError(failure)).toMatchObject({ errorCode: '8002', siteErrorCode: '4031' });
});
