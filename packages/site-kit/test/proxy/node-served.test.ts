import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLicenseProxy } from '../../src/index.ts';
import { toNodeListener } from '../../src/node.ts';
import { listen, type TestServer } from '../http/server.ts';
import { proxyFor, SITE, startService, type Service } from './support.ts';

// The proxy as node:http serves it (toNodeListener: straight from the node message): the body it
// forwards is the one the player sent, whether it came in one chunk, in several, or from a body
// parser that read it first.

let service: Service;
let proxy: TestServer;
let parsed: TestServer;

beforeAll(async () => {
  service = await startService();
  const listener = toNodeListener(proxyFor(service));
  proxy = await listen(listener);
  // What Express's raw() leaves: the body read into req.body, the stream consumed.
  parsed = await listen((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      Object.assign(req, { body: Buffer.concat(chunks) });
      void listener(req, res);
    });
  });
});

afterAll(async () => {
  await proxy.close();
  await parsed.close();
  await service.close();
});

/** POSTs `parts` as separate writes (chunked when more than one) and resolves the status. */
function post(base: string, parts: Uint8Array[]): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(
      `${base}/drm/license?drmType=widevine&cid=movie-1`,
      {
        method: 'POST',
        headers: parts.length === 1 ? { 'content-length': String(parts[0]?.byteLength ?? 0) } : {},
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    const write = (i: number) => {
      if (i === parts.length) return req.end();
      req.write(parts[i]);
      // Apart in time, so that the proxy reads them as chunks of their own.
      setTimeout(() => write(i + 1), 10);
    };
    write(0);
  });
}

const bytes = (from: number, length: number) =>
  Uint8Array.from({ length }, (_, i) => (from + i * 7) % 256);

describe('the proxy served by toNodeListener', () => {
  it('forwards a body that came in one chunk as it came', async () => {
    const body = bytes(1, 69);
    expect(await post(proxy.url, [body])).toBe(200);
    expect(service.arrivals.at(-1)?.body).toEqual(Buffer.from(body));
  });

  it('forwards a body that came in several chunks whole and in order', async () => {
    const parts = [bytes(2, 40), bytes(3, 1), bytes(4, 300)];
    expect(await post(proxy.url, parts)).toBe(200);
    expect(service.arrivals.at(-1)?.body).toEqual(Buffer.concat(parts));
  });

  it("forwards a body parser's body as it read it", async () => {
    const parts = [bytes(5, 20), bytes(6, 30)];
    expect(await post(parsed.url, parts)).toBe(200);
    expect(service.arrivals.at(-1)?.body).toEqual(Buffer.concat(parts));
  });
});

describe('the proxy calling the service over node:http', () => {
  it('sends each of many concurrent calls (written together) with its own body, and relays its own answer', async () => {
    // A service that answers each request with its body reversed.
    const echo = await listen((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'application/octet-stream' });
        res.end(Buffer.concat(chunks).reverse());
      });
    });
    const server = await listen(
      toNodeListener(
        createLicenseProxy({
          ...SITE,
          licenseUrl: `${echo.url}/ri/licenseManager.do`,
          authorize: () => ({ allow: true, userId: 'user-1' }),
        }),
      ),
    );
    try {
      const bodies = Array.from({ length: 40 }, (_, i) => bytes(i, 10 + i));
      const answers = await Promise.all(
        bodies.map(async (body, i) => {
          const response = await fetch(`${server.url}/drm/license?drmType=widevine&cid=c-${i}`, {
            method: 'POST',
            body,
          });
          return new Uint8Array(await response.arrayBuffer());
        }),
      );
      expect(answers).toEqual(bodies.map((body) => body.slice().reverse()));
    } finally {
      await server.close();
      await echo.close();
    }
  });
});
