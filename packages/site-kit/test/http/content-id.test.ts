import { describe, expect, it } from 'vitest';
import {
  createCustomDataHandler,
  createLicenseProxy,
  createTokenHandler,
  createTokenVerifier,
} from '../../src/index.ts';
import { TUTO } from '../support/site.ts';

// One rule for the cid a player sends, wherever site-kit reads it: the token and custom-data
// endpoints' JSON body and the license proxy's query. 1 to 200 characters, no control character
// (the cid goes into the token JSON, the service's request and logs).

const asked: string[] = [];
const authorize = (_: Request, { cid }: { cid: string }) => {
  asked.push(cid);
  return { allow: true as const, userId: 'u1' };
};
const token = createTokenHandler({ ...TUTO, authorize });
const customData = createCustomDataHandler({
  siteId: TUTO.siteId,
  siteKey: TUTO.siteKey,
  authorize,
});
const proxy = createLicenseProxy({
  ...TUTO,
  licenseUrl: 'https://license.example/ri/licenseManager.do',
  authorize: () => ({ allow: true }),
  fetch: async () => new Response(new Uint8Array([1])),
});

const post = (handler: (r: Request) => Promise<Response>, cid: string) =>
  handler(
    new Request('http://site.test/drm', {
      method: 'POST',
      body: JSON.stringify({ cid, drm_type: 'Widevine' }),
      headers: { 'content-type': 'application/json' },
    }),
  );
const viaProxy = (cid: string) =>
  proxy(
    new Request(`https://site.test/drm/license?drmType=widevine&cid=${encodeURIComponent(cid)}`, {
      method: 'POST',
      body: new Uint8Array([8, 4]),
    }),
  );

const LONGEST = 'c'.repeat(200);
const TOO_LONG = 'c'.repeat(201);
const HUGE = 'c'.repeat(15_000);
const CONTROLS = ['movie\r\nx-injected: 1', 'movie\n', 'movie\u0000', 'movie\u007f', '\t'];

describe('the cid a player sends', () => {
  it('the token endpoint takes up to 200 characters and refuses more, or a control character, with 400', async () => {
    const longest = await post(token, LONGEST);
    expect(longest.status).toBe(200);
    expect(createTokenVerifier(TUTO).verify(await longest.text()).cid).toBe(LONGEST);
    asked.length = 0;
    for (const cid of [TOO_LONG, HUGE]) {
      const response = await post(token, cid);
      expect([response.status, await response.text()]).toEqual([
        400,
        'cid: must be at most 200 characters (the content ID).',
      ]);
    }
    for (const cid of CONTROLS) {
      const response = await post(token, cid);
      expect([response.status, await response.text()]).toEqual([
        400,
        'cid: must not contain control characters (CR, LF, NUL, ...).',
      ]);
    }
    expect(asked).toEqual([]);
  });

  it('the custom-data endpoint follows the same rule', async () => {
    expect((await post(customData, LONGEST)).status).toBe(200);
    asked.length = 0;
    for (const cid of [TOO_LONG, HUGE, ...CONTROLS]) {
      expect((await post(customData, cid)).status).toBe(400);
    }
    expect(asked).toEqual([]);
  });

  it('the license proxy follows the same rule', async () => {
    expect((await viaProxy(LONGEST)).status).toBe(200);
    for (const cid of [TOO_LONG, HUGE, ...CONTROLS]) {
      const response = await viaProxy(cid);
      expect(response.status).toBe(400);
      expect(await response.json()).toMatchObject({ code: 'BAD_CID' });
    }
  });
});
