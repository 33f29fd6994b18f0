import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { pageHeaders, startTestStack } from './support/stack.ts';
import { playRequest } from './support/play-request.ts';
import { rawRequest } from './support/raw-http.ts';

// Any input gets a 2xx, 3xx or 4xx from the demo's servers, never a 5xx: odd methods (TRACE and
// made-up ones), odd paths, malformed and oversized bodies, with and without the page's cookie.

const METHODS = [
  'GET',
  'HEAD',
  'POST',
  'PUT',
  'DELETE',
  'PATCH',
  'OPTIONS',
  'TRACE',
  'PROPFIND',
  'FOO',
];
const PATHS = [
  '/',
  '/index.html',
  '/token',
  '/custom-data',
  '/custom-data-xml',
  '/gateway',
  '/gateway-xml',
  '/api/get-setup',
  '/api/prepare-play',
  '/api/set-real-service',
  // The site's license proxy (proxy mode): its license, certificate and server-info requests, and
  // the log of its events the page reads.
  '/license-proxy',
  '/license-proxy?drmType=widevine&cid=multidrm-sample',
  '/license-proxy?drmType=PlayReady&cid=free-sample&cid=x',
  '/license-proxy?drmType=fairplay',
  '/license-proxy?drmType=ncg&mode=getserverinfo',
  `/license-proxy?drmType=widevine&cid=${'%00'.repeat(50)}`,
  '/proxy-events',
  '/proxy-events?after=1',
  '/proxy-events?after=%FF',
  '/manifest.mpd',
  '/video/1.m4s',
  '/keys.json',
  '/%',
  '/%00',
  '/%FF%FE',
  '/..%2f..%2fpackage.json',
  '/?launch=',
  '/?launch=%FF',
  `/${'a'.repeat(4000)}`,
];
const BODIES: (string | Buffer | undefined)[] = [
  undefined,
  '',
  '{',
  '[]',
  '[{}]',
  'null',
  '{"cid":1,"drm_type":[]}',
  'data=%%%',
  '['.repeat(20_000),
  Buffer.from([0xff, 0xfe, 0x00, 0x80, 0xc3, 0x28]),
  'x'.repeat(70 * 1024),
];
const TYPES = ['application/json', 'application/x-www-form-urlencoded', 'text/plain'];

let web: Awaited<ReturnType<typeof startTestStack>>;
let electron: Awaited<ReturnType<typeof startTestStack>>;
let asPage: Record<string, string>;

beforeAll(async () => {
  web = await startTestStack('web');
  electron = await startTestStack('electron');
  asPage = await pageHeaders(web.stack);
  // A signed-in member: the proxy's requests go past the site's decision to the emulator, bodies
  // and all, rather than stop at a refusal.
  const prepared = await web.stack.api.preparePlay(playRequest({ mode: 'proxy' }));
  if (!prepared.ok) throw new Error(prepared.error.message);
});
afterAll(async () => {
  await web?.close();
  await electron?.close();
});

/** Every request of the sweep against one server; the answers that were 5xx, named. */
async function sweep(base: string, headers: Record<string, string>): Promise<string[]> {
  const failures: string[] = [];
  for (const method of METHODS) {
    for (const path of PATHS) {
      const bodies = method === 'GET' || method === 'HEAD' ? [undefined] : BODIES;
      for (const [i, body] of bodies.entries()) {
        const type = TYPES[i % TYPES.length] as string;
        const answer = await rawRequest(`${base}${path}`, {
          method,
          headers: {
            ...headers,
            host: new URL(base).host,
            ...(body === undefined ? {} : { 'content-type': type }),
          },
          ...(body === undefined ? {} : { body }),
        }).catch((error: unknown) => ({ status: 599, error: String(error) }));
        if (answer.status >= 500) {
          failures.push(`${method} ${path.slice(0, 40)} body#${i}: ${answer.status}`);
        }
      }
    }
  }
  return failures;
}

describe('no 5xx from the demo for any input', () => {
  test("the web mode's app server, as the page (cookie and Origin)", async () => {
    let forwarded = 0;
    const off = web.stack.events.on((event) => {
      if (event.type === 'license-request') forwarded++;
    });
    expect(await sweep(web.stack.url, asPage)).toEqual([]);
    off();
    // Each odd body POSTed to the proxy's license path reached the license service (with the
    // proxy's token), but the empty ones and those over its 64 KiB limit, which it refuses itself.
    const passed = BODIES.filter((body) => body && body.length > 0 && body.length <= 64 * 1024);
    expect(forwarded).toBe(passed.length);
  });

  test('the license proxy answers 405, naming what it takes, to every method but GET, POST and OPTIONS', async () => {
    const answers: string[] = [];
    // FOO is no method node's HTTP parser knows: it answers 400 before any handler sees it.
    for (const method of METHODS.filter((m) => !['GET', 'POST', 'OPTIONS', 'FOO'].includes(m))) {
      const answer = await rawRequest(`${web.stack.url}/license-proxy?drmType=widevine&cid=a`, {
        method,
        headers: { ...asPage, host: new URL(web.stack.url).host },
      });
      answers.push(`${method} ${answer.status} ${String(answer.headers['allow'])}`);
    }
    expect(answers).toEqual([
      'HEAD 405 GET, POST, OPTIONS',
      // The demo's server answers the methods it never serves before any handler.
      'PUT 405 GET, HEAD, POST, OPTIONS',
      'DELETE 405 GET, HEAD, POST, OPTIONS',
      'PATCH 405 GET, HEAD, POST, OPTIONS',
      'TRACE 405 GET, HEAD, POST, OPTIONS',
      'PROPFIND 405 GET, HEAD, POST, OPTIONS',
    ]);
  });

  test("the web mode's app server, as a stranger", async () => {
    expect(await sweep(web.stack.url, { origin: 'http://evil.example' })).toEqual([]);
  });

  test('the content server', async () => {
    expect(await sweep(web.stack.contentUrl, { origin: web.stack.url })).toEqual([]);
  });

  test("the Electron shell's loopback server (gateways only)", async () => {
    expect(await sweep(electron.stack.loopbackUrl, {})).toEqual([]);
  });

  test("the Electron shell's scheme handler", async () => {
    const failures: string[] = [];
    // Electron hands the handler a web Request, which cannot carry TRACE: Electron refuses it first.
    for (const method of METHODS.filter((m) => m !== 'TRACE')) {
      for (const path of PATHS) {
        const bodies = method === 'GET' || method === 'HEAD' ? [undefined] : BODIES;
        for (const [i, body] of bodies.entries()) {
          const answer = await electron.stack.handle(
            new Request(`${electron.stack.url}${path}`, {
              method,
              headers: { origin: electron.stack.url, 'content-type': 'application/json' },
              ...(body === undefined
                ? {}
                : { body: typeof body === 'string' ? body : new Uint8Array(body) }),
            }),
          );
          if (answer.status >= 500) failures.push(`${method} ${path.slice(0, 40)} body#${i}`);
        }
      }
    }
    expect(failures).toEqual([]);
  });
});
