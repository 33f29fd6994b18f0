import { describe, expect, it, vi } from 'vitest';
import * as node from '../../src/index.ts';
import * as web from '../../src/web/index.ts';
import { TUTO } from '../support/site.ts';

// The handlers the workerd, edge-light and browser conditions load answer exactly as the Node ones.
const KEY = 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa';
const NOW = Date.parse('2026-03-01T12:00:00Z');

function gateways() {
  const options: node.GatewayHandlerOptions = {
    siteKey: KEY,
    now: () => NOW,
    authorize: (request) =>
      request.user_id === 'blocked'
        ? { allow: false, error_code: '4031', error_message: 'not entitled' }
        : { allow: true, playback_policy: { limit: true, duration: 3600 } },
  };
  return { node: node.createGatewayHandler(options), web: web.createGatewayHandler(options) };
}

const form = (data: string) => `data=${encodeURIComponent(data)}`;
const request = (fields: Partial<node.GatewayRequest> & { format: 'json' | 'xml' }) =>
  node.encodeGatewayRequest(
    {
      user_id: 'u',
      cid: 'movie',
      nonce: 'n-1',
      drm_type: 'Widevine',
      ...fields,
    } as node.GatewayRequest,
    KEY,
  );
const badJson = node.encrypt('{"user_id": not json', KEY);
const badPadding = (() => {
  const bytes = Buffer.from(badJson, 'base64');
  bytes[bytes.length - 1] = (bytes[bytes.length - 1] as number) ^ 0x55;
  return bytes.toString('base64');
})();

const gatewayCases: [string, RequestInit][] = [
  ['a JSON request', { method: 'POST', body: request({ format: 'json' }) }],
  ['an XML request', { method: 'POST', body: request({ format: 'xml' }) }],
  ['a refused user', { method: 'POST', body: request({ format: 'json', user_id: 'blocked' }) }],
  [
    'a request that breaks the spec',
    { method: 'POST', body: form(node.encrypt('{"cid":"m"}', KEY)) },
  ],
  ['a bad padding', { method: 'POST', body: form(badPadding) }],
  ['a bad plaintext', { method: 'POST', body: form(badJson) }],
  ['no data', { method: 'POST', body: 'hello' }],
  ['a GET', { method: 'GET' }],
  ['a body over the limit', { method: 'POST', body: 'x'.repeat(70_000) }],
];

async function snapshot(response: Response) {
  return {
    status: response.status,
    headers: Object.fromEntries(response.headers),
    body: await response.text(),
  };
}

describe('the Web Crypto gateway handler', () => {
  it.each(gatewayCases)('answers %s byte for byte as the Node handler', async (_name, init) => {
    const { node: nodeHandler, web: webHandler } = gateways();
    const url = 'http://site.test/gateway';
    expect(await snapshot(await webHandler(new Request(url, init)))).toEqual(
      await snapshot(await nodeHandler(new Request(url, init))),
    );
  });

  it('takes one path for a bad padding and a bad plaintext: Web Crypto never sees the padding, the text is parsed either way', async () => {
    const { web: handler } = gateways();
    const subtle = globalThis.crypto.subtle;
    const decrypt = vi.spyOn(subtle, 'decrypt');
    const encrypt = vi.spyOn(subtle, 'encrypt');
    const parse = vi.spyOn(JSON, 'parse');
    const run = async (data: string) => {
      decrypt.mockClear();
      encrypt.mockClear();
      parse.mockClear();
      const response = await handler(
        new Request('http://site.test/gw', { method: 'POST', body: form(data) }),
      );
      const rejected = await Promise.all(
        decrypt.mock.results.map((r) =>
          (r.value as Promise<unknown>).then(
            () => false,
            () => true,
          ),
        ),
      );
      return {
        status: response.status,
        body: await response.text(),
        decrypts: decrypt.mock.calls.length,
        encrypts: encrypt.mock.calls.length,
        rejected,
        parses: parse.mock.calls.length,
      };
    };
    await run(badJson); // the first Request parses something of its own once
    const a = await run(badJson);
    const b = await run(badPadding);
    decrypt.mockRestore();
    encrypt.mockRestore();
    parse.mockRestore();
    expect(a).toEqual({
      status: 400,
      body: expect.any(String),
      decrypts: 1,
      encrypts: 1,
      rejected: [false],
      parses: 1,
    });
    expect(b).toEqual(a);
  });
});

describe('the Web Crypto token endpoint', () => {
  const options: node.TokenHandlerOptions = {
    ...TUTO,
    authorize: (req, asked) =>
      req.headers.get('cookie') === 'session=ok'
        ? {
            allow: true,
            userId: 'user-1',
            policy: { policy_version: 2, playback_policy: { license_duration: asked.cid.length } },
          }
        : { allow: false, status: 401, reason: 'Sign in first.' },
  };
  const post = (handler: node.WebHandler, body: string, cookie = 'session=ok') =>
    handler(
      new Request('http://site.test/token', {
        method: 'POST',
        body,
        headers: { cookie, 'content-type': 'application/json' },
      }),
    );

  it('issues v2 tokens the Node verifier accepts', async () => {
    const response = await post(
      web.createTokenHandler(options),
      JSON.stringify({ cid: 'movie', drm_type: 'Widevine' }),
    );
    expect(response.status).toBe(200);
    const verified = node.verifyLicenseToken(await response.text(), TUTO);
    expect(verified).toMatchObject({
      version: 2,
      cid: 'movie',
      userId: 'user-1',
      drmType: 'Widevine',
    });
    expect(verified.policy).toEqual({
      policy_version: 2,
      playback_policy: { license_duration: 5 },
    });
  });

  it.each([
    ['a signed-out user', JSON.stringify({ cid: 'movie', drm_type: 'Widevine' }), 'nobody'],
    ['a body that is not JSON', 'cid=movie', 'session=ok'],
    ['an unknown DRM', JSON.stringify({ cid: 'movie', drm_type: 'Clear' }), 'session=ok'],
  ])('refuses %s as the Node endpoint does', async (_name, body, cookie) => {
    const webAnswer = await snapshot(await post(web.createTokenHandler(options), body, cookie));
    expect(webAnswer).toEqual(
      await snapshot(await post(node.createTokenHandler(options), body, cookie)),
    );
    expect(webAnswer.status).toBeGreaterThanOrEqual(400);
  });

  it('checks the keys when the handler is made, as the Node one does', () => {
    const bad = { ...options, siteKey: 'short' };
    expect(() => web.createTokenHandler(bad)).toThrow(/exactly 32 bytes/);
    expect(() =>
      web.createGatewayHandler({
        siteKey: 'short',
        authorize: () => ({ allow: false, error_code: '1', error_message: 'x' }),
      }),
    ).toThrow(/exactly 32 bytes/);
  });
});
