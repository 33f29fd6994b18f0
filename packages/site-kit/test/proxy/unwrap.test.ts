import { describe, expect, it } from 'vitest';
import { createLicenseProxy } from '../../src/index.ts';

// The json response format as the wire addendum words it (Widevine's license as hex text, the
// others as the text the CDM takes). The emulator does not answer Widevine's hex yet, so the
// service's answer comes from the `fetch` option here.
const SITE = { siteId: 'SITE', siteKey: 'lU5D8s3PWoLls3PWFWkClULlFWk5D8oC', accessKey: 'access' };

function proxyAnswering(body: string) {
  return createLicenseProxy({
    ...SITE,
    licenseUrl: 'https://license.example/ri/licenseManager.do',
    authorize: () => ({ allow: true, responseFormat: 'json' }),
    unwrapJson: true,
    fetch: async () => new Response(body, { headers: { 'content-type': 'application/json' } }),
  });
}

const ask = (proxy: (r: Request) => Promise<Response>, drm: string) =>
  proxy(
    new Request(`https://site.example/drm/license?drmType=${drm}&cid=movie`, {
      method: 'POST',
      body: new Uint8Array([8, 4]),
    }),
  );

describe('unwrapJson', () => {
  it("turns Widevine's hex license into its bytes", async () => {
    const response = await ask(
      proxyAnswering('{"license":"0a0bFF","device_info":{"device_id":"d"}}'),
      'widevine',
    );
    expect(response.headers.get('content-type')).toBe('application/octet-stream');
    expect([...new Uint8Array(await response.arrayBuffer())]).toEqual([0x0a, 0x0b, 0xff]);
  });

  it("answers FairPlay's license text (the CKC) as text", async () => {
    const response = await ask(proxyAnswering('{"license":"Q0tDCg=="}'), 'fairplay');
    expect(response.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(await response.text()).toBe('Q0tDCg==');
  });

  it('leaves a refusal as it came, even with a license member', async () => {
    const refusal = '{"errorCode":7011,"message":"Token expired","license":"00"}';
    const response = await ask(proxyAnswering(refusal), 'widevine');
    expect([response.status, await response.text()]).toEqual([200, refusal]);
  });

  it('leaves an answer without a license member as it came', async () => {
    const response = await ask(proxyAnswering('{"keys":[]}'), 'widevine');
    expect(await response.text()).toBe('{"keys":[]}');
  });

  it('answers 502 UPSTREAM_BAD_ANSWER for a license that is not text', async () => {
    const response = await ask(proxyAnswering('{"license":42}'), 'widevine');
    expect(response.status).toBe(502);
    expect(await response.json()).toEqual({
      code: 'UPSTREAM_BAD_ANSWER',
      message:
        'The license service answered json without a license text; the proxy cannot unwrap it.',
    });
  });
});
