import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { verifyLicenseToken, type LicenseProxyEvent } from '@multidrm/site-kit';
import { licenseServiceHandlers, proxyHandlers } from '../src/msw/index.ts';
import { CID, KEY, KID, TOKEN_SITE, b64url, clearKeyRequest } from './helpers.ts';

// The msw kit with the site's license proxy: site-kit's createLicenseProxy in front of the
// emulator's own handler, both answered by msw, as a site's test suite runs them.
const service = licenseServiceHandlers({
  sites: [TOKEN_SITE],
  keys: { [CID]: { kid: KID, key: KEY } },
});
const events: LicenseProxyEvent[] = [];
const proxy = proxyHandlers({
  site: TOKEN_SITE,
  licenseUrl: service.licenseUrl,
  header: service.config.customDataHeader,
  userId: 'msw-user',
  onEvent: (event) => events.push(event),
});
const server = setupServer(...service, ...proxy);
beforeAll(() => server.listen({ onUnhandledFrame: 'error' }));
afterEach(() => {
  service.faults.clear();
  events.length = 0;
});
afterAll(() => server.close());

const post = (query: string) =>
  fetch(`${proxy.proxyUrl}${query}`, { method: 'POST', body: clearKeyRequest(KID) });

describe('proxyHandlers', () => {
  it('answers at https://site.test/drm/license unless told otherwise', () => {
    expect(proxy.proxyUrl).toBe('https://site.test/drm/license');
  });

  it('gets a ClearKey license through the proxy, with a v2 token checked by the emulator', async () => {
    const response = await post(`?drmType=widevine&cid=${CID}`);
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ keys: [{ kid: b64url(KID), k: b64url(KEY) }] });
    const issued = service.events.recent().find((e) => e.type === 'license-issued');
    expect(issued).toMatchObject({ mode: 'token', userId: 'msw-user', cid: CID });
    const checked = service.events.recent().find((e) => e.type === 'token-checked');
    expect(checked).toMatchObject({ ok: true, version: 2 });
  });

  it("relays the service's refusal as it came", async () => {
    service.faults.set([{ fault: 'token-expired', times: 1 }]);
    const response = await post(`?drmType=widevine&cid=${CID}`);
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ errorCode: '7011' });
  });

  it('refuses for the site without asking the service when authorize says no', async () => {
    const refusing = proxyHandlers({
      site: TOKEN_SITE,
      baseUrl: 'https://refusing.test',
      licenseUrl: service.licenseUrl,
      authorize: () => ({ allow: false, status: 401, reason: 'Sign in first.' }),
    });
    server.use(...refusing);
    const before = service.events.recent().length;
    const response = await fetch(`${refusing.proxyUrl}?drmType=widevine&cid=${CID}`, {
      method: 'POST',
      body: clearKeyRequest(KID),
    });
    expect(response.status).toBe(401);
    expect(await response.json()).toEqual({ code: 'SITE_REFUSED', message: 'Sign in first.' });
    expect(service.events.recent().length).toBe(before);
  });

  it('never puts the token where the page could read it', async () => {
    const response = await post(`?drmType=widevine&cid=${CID}`);
    const text = await response.text();
    const headers = JSON.stringify([...response.headers]);
    expect(text + headers).not.toMatch(/eyJ|"hash"/);
    expect(JSON.stringify(events)).not.toMatch(/eyJ/);
    expect(() => verifyLicenseToken(text, TOKEN_SITE)).toThrow();
  });
});
