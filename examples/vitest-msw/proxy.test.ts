// @vitest-environment node
// A server test: in a page (happy-dom) a Request cannot carry a Cookie header.
// Your license proxy against the license service's real checks: the proxy is your own code (here
// site-kit's createLicenseProxy with your authorize), its upstream is the emulator's msw handlers.
import { licenseServiceHandlers } from '@multidrm/emulator/msw';
import { createLicenseProxy } from '@multidrm/site-kit/proxy';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, expect, test } from 'vitest';

const site = { siteId: 'MYSITE', siteKey: 'my-32-character-site-key-0123456', accessKey: 'my-key' };
const content = { cid: 'movie', kid: '3cd8f6214d7f9677f0b076ca18df2502' };
const service = licenseServiceHandlers({
  sites: [site],
  keys: { [content.cid]: { kid: content.kid, key: 'b01284a7e8e8e5fd81ded212940c7c62' } },
});
const server = setupServer(...service); // answers the proxy's upstream calls
beforeAll(() => server.listen({ onUnhandledFrame: 'error' }));
afterEach(() => service.faults.clear());
afterAll(() => server.close());

// Your site's proxy, as you deploy it: your session decides, the token stays on the server.
const proxy = createLicenseProxy({
  ...site,
  licenseUrl: service.licenseUrl,
  header: service.config.customDataHeader,
  authorize: (request) =>
    request.headers.get('cookie') === 'session=alice'
      ? { allow: true, userId: 'alice' }
      : { allow: false, status: 401, reason: 'Sign in first.' },
});
const challenge = JSON.stringify({ kids: ['PNj2IU1_lnfwsHbKGN8lAg'], type: 'temporary' });
const ask = (cookie: string) =>
  proxy(
    new Request(`https://site.example/drm/license?drmType=widevine&cid=${content.cid}`, {
      method: 'POST',
      headers: { cookie },
      body: challenge,
    }),
  );

test('a signed-in user gets the license through the proxy', async () => {
  const response = await ask('session=alice');
  expect(response.status).toBe(200);
  expect((await response.json()) as unknown).toMatchObject({ keys: [{ kty: 'oct' }] });
});

test('a signed-out user is refused by the site and the service never hears of it', async () => {
  const before = service.events.recent().length;
  const response = await ask('');
  expect(response.status).toBe(401);
  expect(await response.json()).toEqual({ code: 'SITE_REFUSED', message: 'Sign in first.' });
  expect(service.events.recent()).toHaveLength(before);
});

test("the service's 7011 reaches the player as it came (HTTP 200 + errorCode)", async () => {
  service.faults.set([{ fault: 'token-expired', times: 1 }]);
  const response = await ask('session=alice');
  expect(response.status).toBe(200);
  expect(await response.json()).toMatchObject({ errorCode: '7011' });
});
