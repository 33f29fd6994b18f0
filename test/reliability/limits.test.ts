// Bounds on what a client can send: CORS closed unless configured, body size limits on every
// handler, request headers bounded by node:http (http.maxHeaderSize, 16 KiB by default: 431), and
// deeply nested JSON answered like any other bad body (V8's JSON.parse does not recurse on the stack,
// and the schemas never walk members they do not know; XML nesting is capped at 16 by the parser).
import { createServer, maxHeaderSize, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startEmulator, type RunningEmulator } from '@multidrm/emulator';
import {
  createCustomDataHandler,
  createGatewayHandler,
  createTokenHandler,
  decodeGatewayResponse,
  encrypt,
  SiteKitError,
  toNodeListener,
  type WebHandler,
} from '@multidrm/site-kit';

const SITE = { siteId: 'LIMITS', siteKey: 'L1m1tsL1m1tsL1m1tsL1m1tsL1m1ts00', accessKey: 'limits' };
const handlers: Record<string, WebHandler> = {
  '/token': createTokenHandler({ ...SITE, authorize: () => ({ allow: true }) }),
  '/custom-data': createCustomDataHandler({
    siteId: SITE.siteId,
    siteKey: SITE.siteKey,
    authorize: () => ({ allow: true, userId: 'u' }),
  }),
  '/gateway': createGatewayHandler({
    siteKey: SITE.siteKey,
    authorize: () => ({ allow: true, playback_policy: { limit: false } }),
  }),
};
let site: Server;
let siteUrl: string;
let emulator: RunningEmulator;

beforeAll(async () => {
  const listeners = Object.fromEntries(
    Object.entries(handlers).map(([path, h]) => [path, toNodeListener(h)]),
  );
  site = createServer((req, res) => void listeners[req.url ?? '']?.(req, res));
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
  emulator = await startEmulator({ sites: [SITE] });
});
afterAll(async () => {
  await emulator.close();
  site.closeAllConnections();
  await new Promise((r) => site.close(r));
});

const post = (
  url: string,
  body: string | ReadableStream<Uint8Array>,
  headers: Record<string, string> = {},
) =>
  fetch(url, {
    method: 'POST',
    body,
    // What a player sends (the site endpoints refuse other content types with 415).
    headers: { 'content-type': 'application/json', ...headers },
    duplex: 'half',
    signal: AbortSignal.timeout(5_000),
  } as RequestInit);

describe('CORS is closed by default', () => {
  test.each(['/token', '/custom-data', '/gateway'])(
    'site-kit %s without cors options: no CORS header for a foreign origin, no preflight',
    async (path) => {
      const origin = { origin: 'https://evil.example' };
      const answer = await post(`${siteUrl}${path}`, '{}', origin);
      expect([...answer.headers.keys()].filter((h) => h.startsWith('access-control'))).toEqual([]);
      const preflight = await fetch(`${siteUrl}${path}`, {
        method: 'OPTIONS',
        headers: { ...origin, 'access-control-request-method': 'POST' },
      });
      expect(preflight.status).toBe(405);
      expect(preflight.headers.get('access-control-allow-origin')).toBeNull();
    },
  );

  test('the emulator without allowedOrigins never lets cookies go along (no credentials)', async () => {
    const answer = await post(`${emulator.url}/license`, '{}', { origin: 'https://evil.example' });
    expect(answer.headers.get('access-control-allow-credentials')).toBeNull();
  });
});

describe('every handler limits its body', () => {
  test.each([
    ['/token', 16 * 1024],
    ['/custom-data', 16 * 1024],
    ['/gateway', 64 * 1024],
  ])('site-kit %s: 413 over %i bytes, declared or streamed', async (path, limit) => {
    const big = 'x'.repeat(limit + 1);
    expect((await post(`${siteUrl}${path}`, big)).status).toBe(413);
    const streamed = new ReadableStream({
      start(controller) {
        controller.enqueue(new TextEncoder().encode(big));
        controller.close();
      },
    });
    expect((await post(`${siteUrl}${path}`, streamed)).status).toBe(413);
  });

  test('the emulator /license: PAYLOAD_TOO_LARGE over 64 KiB', async () => {
    const answer = await post(`${emulator.url}/license`, 'x'.repeat(64 * 1024 + 1));
    expect([answer.status, answer.headers.get('x-drm-error-code')]).toEqual([
      413,
      'PAYLOAD_TOO_LARGE',
    ]);
  });
});

describe('request headers are bounded by node:http', () => {
  const oversized = (url: string) =>
    new Promise<number>((resolve, reject) => {
      const req = request(url, {
        method: 'POST',
        headers: { 'x-filler': 'a'.repeat(maxHeaderSize + 1) },
      });
      req.on('response', (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
      req.end('{}');
    });

  test('http.maxHeaderSize is 16 KiB here', () => {
    expect(maxHeaderSize).toBe(16 * 1024);
  });

  test.each(['site', 'emulator'])(
    'the %s answers 431 to headers over it, and keeps serving',
    async (which) => {
      const url = which === 'site' ? `${siteUrl}/token` : `${emulator.url}/license`;
      expect(await oversized(url)).toBe(431);
      expect((await post(url, '{}')).status).toBeLessThan(500);
    },
  );
});

describe('deeply nested JSON is answered like any other bad body', () => {
  const deep = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;

  test('token endpoint: 400 for a nested cid, nesting in unknown members ignored', async () => {
    const nested = await post(`${siteUrl}/token`, `{"cid":${deep(7000)},"drm_type":"Widevine"}`);
    expect(nested.status).toBe(400);
    const ignored = await post(
      `${siteUrl}/token`,
      `{"cid":"m","drm_type":"Widevine","x":${deep(7000)}}`,
    );
    expect(ignored.status).toBe(200);
  });

  test('gateway: a nested request decrypts to an encrypted 9001 answer', async () => {
    const data = encrypt(`{"user_id":${deep(5000)}}`, SITE.siteKey);
    const answer = await post(`${siteUrl}/gateway`, `data=${encodeURIComponent(data)}`);
    const decoded = decodeGatewayResponse(await answer.text(), 'json', SITE.siteKey);
    expect(decoded).toMatchObject({ error_code: '9001' });
  });

  test('gateway: XML nested deeper than 16 elements is refused as unreadable', async () => {
    const xml = `<?xml version="1.0"?><RES>${'<A>'.repeat(40)}${'</A>'.repeat(40)}</RES>`;
    const answer = await post(
      `${siteUrl}/gateway`,
      `data=${encodeURIComponent(encrypt(xml, SITE.siteKey))}`,
    );
    expect(answer.status).toBe(400);
  });

  test("emulator: a nested license body and a nested token header get the service's refusal codes", async () => {
    const body = await post(emulator.licenseUrl, `{"kids":${deep(20000)}}`, {
      'x-drm-custom-data': Buffer.from('{"token":1}').toString('base64'),
    });
    expect(body.status).toBe(200);
    expect(await body.json()).toMatchObject({ errorCode: expect.stringMatching(/^\d{4}$/) });
    const header = Buffer.from(`{"site_id":${deep(4000)}}`).toString('base64');
    const token = await post(emulator.licenseUrl, '{"kids":[]}', { 'x-drm-custom-data': header });
    expect(token.status).toBe(200);
    expect(await token.json()).toMatchObject({ errorCode: expect.stringMatching(/^\d{4}$/) });
  });

  test("the emulator's reading of a gateway answer: a nested answer is INVALID_GATEWAY_RESPONSE", () => {
    const answer = encrypt(`{"error_code":"0000","nonce":${deep(100000)}}`, SITE.siteKey);
    expect(() => decodeGatewayResponse(answer, 'json', SITE.siteKey)).toThrow(SiteKitError);
  });
});
