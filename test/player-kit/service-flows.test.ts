// @vitest-environment happy-dom
// The player module against the emulator's own checks (the msw kit, in-process), where the player's
// unit tests use hand-written answers: real v2 tokens from site-kit, real refusals and their codes
// from the emulator, real ClearKey licenses. The edge cases of the wire (numeric codes, bodies a
// service might send but the emulator does not) stay in packages/player/test.
import { licenseServiceHandlers, siteHandlers } from '@multidrm/emulator/msw';
import {
  attachLicenseAuth,
  findLicenseAuthError,
  type LicenseAuthEvents,
  type LicenseAuthHandle,
} from '@multidrm/player';
import { setupServer } from 'msw/node';
import shakaModule from 'shaka-player';
import type Shaka from 'shaka-player';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const SAMPLE = JSON.parse(
  readFileSync(join(import.meta.dirname, '../fixtures/content/keys.json'), 'utf8'),
) as { cid: string; kid: string; key: string };
const shaka = shakaModule as unknown as typeof Shaka.default;
shaka.polyfill.installAll();
const ORIGIN = (globalThis as unknown as { location: { origin: string } }).location.origin;
const site = { siteId: 'KIT', siteKey: 'kit-site-key-0123456789abcdefghi', accessKey: 'kit-key' };
const kid = Buffer.from(SAMPLE.kid, 'hex').toString('base64url');

const service = licenseServiceHandlers({
  sites: [{ ...site, gatewayUrl: `${ORIGIN}/drm/gateway` }],
  keys: { [SAMPLE.cid]: { kid: SAMPLE.kid, key: SAMPLE.key } },
});
const endpoints = siteHandlers({ site, baseUrl: ORIGIN });
const server = setupServer(...service, ...endpoints);
beforeAll(() => server.listen({ onUnhandledFrame: 'error' }));
afterEach(() => service.faults.clear());
afterAll(() => server.close());

function player(endpoint: { tokenUrl: string } | { customDataUrl: string }) {
  const p = new shaka.Player();
  const handle = attachLicenseAuth(p, {
    contentId: SAMPLE.cid,
    ...endpoint,
    licenseServer: { 'org.w3.clearkey': service.licenseUrl },
    header: service.config.customDataHeader,
    autoPrefetch: false,
  });
  return { p, handle };
}

/** The ClearKey license request Shaka's DRM engine sends for the sample's key. */
function askLicense(p: Shaka.default.Player) {
  const net = shaka.net.NetworkingEngine;
  const request = net.makeRequest([service.licenseUrl], {
    ...net.defaultRetryParameters(),
    baseDelay: 1,
    fuzzFactor: 0,
  });
  request.method = 'POST';
  request.licenseRequestType = 'license-request';
  request.body = new TextEncoder().encode(JSON.stringify({ kids: [kid], type: 'temporary' }));
  request.drmInfo = { keySystem: 'org.w3.clearkey' } as typeof request.drmInfo;
  return p.getNetworkingEngine()!.request(net.RequestType.LICENSE, request).promise;
}

function events<K extends keyof LicenseAuthEvents>(handle: LicenseAuthHandle, name: K) {
  const seen: LicenseAuthEvents[K][] = [];
  handle.on(name, (e) => seen.push(e));
  return seen;
}
const outcomes = () =>
  service.events
    .recent()
    .flatMap((e) =>
      e.type === 'license-issued' ? ['issued'] : e.type === 'license-denied' ? [e.errorCode] : [],
    );
const keysOf = async (answer: Promise<{ data: ArrayBuffer | ArrayBufferView }>) =>
  (
    JSON.parse(Buffer.from((await answer).data as ArrayBuffer).toString('utf8')) as {
      keys: { kid: string }[];
    }
  ).keys;

describe('the player against the emulator kit', () => {
  test('a v2 token from the site gets the ClearKey license of the sample', async () => {
    const { p } = player({ tokenUrl: endpoints.tokenUrl });
    const before = outcomes().length;
    expect((await keysOf(askLicense(p))).map((k) => k.kid)).toEqual([kid]);
    expect(outcomes().slice(before)).toEqual(['issued']);
    expect(service.events.recent()).toContainEqual(
      expect.objectContaining({ type: 'token-checked', ok: true, version: 2 }),
    );
  });

  test('7011 from the service: one fresh token from the site, the same request once more, the license', async () => {
    service.faults.set([{ fault: 'token-expired', times: 1 }]);
    const { p, handle } = player({ tokenUrl: endpoints.tokenUrl });
    const sent = events(handle, 'licenseRequestSent');
    const tokens = events(handle, 'tokenReceived');
    const before = outcomes().length;
    expect(await keysOf(askLicense(p))).toHaveLength(1);
    expect(outcomes().slice(before)).toEqual(['7011', 'issued']);
    expect(sent.map((s) => s.refreshed)).toEqual([false, true]);
    expect(tokens).toHaveLength(2);
  });

  test("8002 from the site's gateway: a typed error with the site's code, no fresh token", async () => {
    service.faults.set([
      { fault: 'gateway-refusal', siteCode: '4031', message: 'Subscription ended' },
    ]);
    const { p, handle } = player({ customDataUrl: endpoints.customDataUrl });
    const tokens = events(handle, 'tokenReceived');
    const failure: unknown = await askLicense(p).catch((error: unknown) => error);
    expect(findLicenseAuthError(failure)).toMatchObject({
      errorCode: '8002',
      siteErrorCode: '4031',
      siteErrorMessage: 'Subscription ended',
    });
    expect(tokens).toHaveLength(1);
  });
});
