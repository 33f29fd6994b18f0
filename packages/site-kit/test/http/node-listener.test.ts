import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createGatewayHandler,
  createTokenHandler,
  createTokenVerifier,
  decodeGatewayResponse,
  encodeGatewayRequest,
  toNodeListener,
  type GatewayDecision,
  type GatewayRequest,
} from '../../src/index.ts';
import { listen, type TestServer } from './server.ts';

const KEY = 'lU5D8s3PWoLls3PWFWkClULlFWk5D8oC';

// Decides from the content ID so one server covers allow and deny.
const authorize = (request: GatewayRequest): GatewayDecision =>
  request.cid.startsWith('free')
    ? {
        allow: true,
        playback_policy: { limit: true, expire_date: '2030-01-01T00:00:00Z' },
        security_policy: { output_protect: { control_hdcp: 1 } },
        external_key: {
          mpeg_cenc: { key_id: '0'.repeat(32), key: '1'.repeat(32) },
        },
      }
    : { allow: false, error_code: '4001', error_message: `no rights to ${request.cid}` };

let gateway: TestServer;
let echo: TestServer;

beforeAll(async () => {
  gateway = await listen(
    toNodeListener(
      createGatewayHandler({
        siteKey: KEY,
        authorize,
        maxBodyBytes: 1024,
        now: () => Date.UTC(2029, 0, 1),
      }),
    ),
  );
  echo = await listen(
    toNodeListener(async (request) => {
      const headers = new Headers({
        'x-method': request.method,
        'x-path': new URL(request.url).pathname,
      });
      headers.append('set-cookie', 'a=1');
      headers.append('set-cookie', 'b=2');
      return new Response(`${request.headers.get('x-multi')}|${await request.text()}`, {
        status: 201,
        headers,
      });
    }),
  );
});

afterAll(async () => {
  await gateway.close();
  await echo.close();
});

const post = (url: string, body: string, headers: Record<string, string> = {}) =>
  fetch(url, {
    method: 'POST',
    body,
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
  });

describe('gateway round trip over node:http', () => {
  const cases: { name: string; request: GatewayRequest; check: (answer: unknown) => void }[] = [
    {
      name: 'JSON allow',
      request: {
        format: 'json',
        user_id: 'u1',
        cid: 'free-1',
        nonce: 'n-1',
        drm_type: 'PlayReady',
      },
      check: (answer) =>
        expect(answer).toEqual({
          format: 'json',
          error_code: '0000',
          error_message: 'success',
          playback_policy: { limit: true, expire_date: '2030-01-01T00:00:00Z' },
          security_policy: { output_protect: { control_hdcp: 1 } },
          external_key: { mpeg_cenc: { key_id: '0'.repeat(32), key: '1'.repeat(32) } },
          nonce: 'n-1',
        }),
    },
    {
      name: 'JSON deny',
      request: { format: 'json', user_id: 'u1', cid: 'paid-1', nonce: 'n-2', drm_type: 'NCG' },
      check: (answer) =>
        expect(answer).toEqual({
          format: 'json',
          error_code: '4001',
          error_message: 'no rights to paid-1',
          playback_policy: { limit: false, persistent: false },
          nonce: 'n-2',
        }),
    },
    {
      name: 'XML allow',
      request: { format: 'xml', user_id: 'u1', cid: 'free-2', oid: 'o', nonce: 'n-3' },
      check: (answer) =>
        expect(answer).toEqual({
          format: 'xml',
          ERROR: '0000',
          ERRMSG: 'success',
          LIMIT: 'Y',
          PD_START: '2029-01-01T00:00:00Z',
          PD_END: '2030-01-01T00:00:00Z',
          PC: { HDCP: 1, 'CGMS-A': -1, APS: 0 },
          PACKINFO: {
            KEYID: Buffer.alloc(16, 0).toString('base64'),
            KEY: Buffer.alloc(16, 0x11).toString('base64'),
          },
          NONCE: 'n-3',
        }),
    },
    {
      name: 'XML deny',
      request: { format: 'xml', user_id: 'u1', cid: 'paid-2', nonce: 'n-4' },
      check: (answer) =>
        expect(answer).toEqual({
          format: 'xml',
          ERROR: '4001',
          ERRMSG: 'no rights to paid-2',
          NONCE: 'n-4',
        }),
    },
  ];

  for (const { name, request, check } of cases) {
    it(`${name}: the decrypted answer matches field by field`, async () => {
      const response = await post(gateway.url, encodeGatewayRequest(request, KEY));
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('text/plain; charset=utf-8');
      check(decodeGatewayResponse(await response.text(), request.format, KEY));
    });
  }

  it('answers 413 to a chunked body over the limit and keeps serving', async () => {
    const status = await new Promise<number>((resolve, reject) => {
      const req = httpRequest(`${gateway.url}/gateway`, { method: 'POST' }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
      // No Content-Length: the limit must be found while streaming.
      for (let i = 0; i < 64; i++) req.write('x'.repeat(512));
      req.end();
    });
    expect(status).toBe(413);
    const again = await post(gateway.url, encodeGatewayRequest(cases[0]!.request, KEY));
    expect(again.status).toBe(200);
  });
});

describe('toNodeListener', () => {
  it('passes method, path, repeated headers and body in, and status, headers and cookies out', async () => {
    const response = await fetch(`${echo.url}/some/path?q=1`, {
      method: 'PUT',
      body: 'hello',
      headers: [
        ['x-multi', 'one'],
        ['x-multi', 'two'],
      ],
    });
    expect(response.status).toBe(201);
    expect(response.headers.get('x-method')).toBe('PUT');
    expect(response.headers.get('x-path')).toBe('/some/path');
    expect(response.headers.getSetCookie()).toEqual(['a=1', 'b=2']);
    expect(await response.text()).toBe('one, two|hello');
  });

  it('streams the body to a plain web handler, which can stop reading at its own limit', async () => {
    let read = 0;
    const server = await listen(
      toNodeListener(async (request) => {
        const reader = (request.body as ReadableStream<Uint8Array>).getReader();
        for (;;) {
          const { done, value } = await reader.read();
          if (done) return new Response(`read ${read}`);
          read += value.byteLength;
          if (read > 1024) {
            await reader.cancel();
            return new Response('too large', { status: 413 });
          }
        }
      }),
    );
    try {
      const status = await new Promise<number>((resolve, reject) => {
        const req = httpRequest(server.url, { method: 'POST' }, (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        });
        req.on('error', reject);
        for (let i = 0; i < 256; i++) req.write('x'.repeat(1024));
        req.end();
      });
      expect(status).toBe(413);
      expect(read).toBeLessThan(64 * 1024);
      read = 0;
      const small = await fetch(server.url, { method: 'POST', body: 'abc' });
      expect(await small.text()).toBe('read 3');
    } finally {
      await server.close();
    }
  });

  it("gives a site handler's authorize a Request that reads like the real one, and clones to one", async () => {
    const site = {
      siteId: 'NODE',
      siteKey: KEY,
      accessKey: 'LT2FVJDp2Xr018zf4Di6lzvNOv3DKP20',
    };
    const seen: string[] = [];
    const server = await listen(
      toNodeListener(
        createTokenHandler({
          ...site,
          authorize: async (request) => {
            const forwarded = new Request(request.clone());
            seen.push(
              String(request instanceof Request),
              request.method,
              new URL(request.url).pathname,
              request.headers.get('cookie') ?? '',
              forwarded.headers.get('cookie') ?? '',
            );
            return { allow: true, userId: 'user-1' };
          },
        }),
      ),
    );
    try {
      const response = await fetch(`${server.url}/token`, {
        method: 'POST',
        body: JSON.stringify({ cid: 'movie-1', drm_type: 'Widevine' }),
        headers: { 'content-type': 'application/json', cookie: 'sid=abc' },
      });
      expect(response.status).toBe(200);
      expect(seen).toEqual(['true', 'POST', '/token', 'sid=abc', 'sid=abc']);
      const verified = createTokenVerifier(site).verify(await response.text());
      expect(verified.userId).toBe('user-1');
    } finally {
      await server.close();
    }
  });

  it('gives any request target the normal answer or a 400: "//" and "/\\" are paths, never a 500', async () => {
    const site = { siteId: 'NODE', siteKey: KEY, accessKey: 'LT2FVJDp2Xr018zf4Di6lzvNOv3DKP20' };
    const paths: string[] = [];
    const server = await listen(
      toNodeListener(
        createTokenHandler({
          ...site,
          authorize: (request) => {
            paths.push(new URL(request.url).pathname);
            return { allow: true, userId: 'user-1' };
          },
        }),
      ),
    );
    const body = JSON.stringify({ cid: 'movie-1', drm_type: 'Widevine' });
    const ask = (target: string, serve: TestServer = server) =>
      rawPost(serve.url, target, body, { 'content-type': 'application/json' });
    try {
      for (const target of ['//', '/\\', '//elsewhere.example/x', 'http://u:p@other.example/t']) {
        const answer = await ask(target);
        expect(answer.status, target).toBe(200);
        expect(createTokenVerifier(site).verify(answer.body).userId).toBe('user-1');
      }
      expect(paths).toEqual(['//', '//', '//elsewhere.example/x', '/t']);
      for (const target of ['http://[', 'http://x:99999/']) {
        expect(await ask(target)).toEqual({
          status: 400,
          body: 'Bad request: the request target is neither a path nor a URL.',
        });
        expect(await ask(target, echo)).toMatchObject({ status: 400 });
      }
      expect(await ask('//', echo)).toEqual({ status: 201, body: `null|${body}` });
      expect(paths).toHaveLength(4);
    } finally {
      await server.close();
    }
  });

  it("with the README's server timeouts, a body that trickles in gets 408 and its connection closed", async () => {
    const handler = createGatewayHandler({ siteKey: KEY, authorize });
    // The README's options, shortened: Node's own default holds such a request 300 s.
    const server = createServer(
      { requestTimeout: 300, headersTimeout: 300, connectionsCheckingInterval: 100 },
      toNodeListener(handler),
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const socket = connect(port, '127.0.0.1');
      let text = '';
      socket.on('data', (chunk: Buffer) => (text += chunk.toString()));
      socket.write(
        `POST / HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\ncontent-length: 900\r\n\r\ndata=`,
      );
      await new Promise((resolve) => socket.once('close', resolve));
      expect(text).toMatch(/^HTTP\/1\.1 408 /);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('answers 500 without details when a handler throws', async () => {
    const server = await listen(
      toNodeListener(async () => {
        throw new Error('secret detail');
      }),
    );
    try {
      const response = await fetch(server.url);
      expect(response.status).toBe(500);
      expect(await response.text()).not.toContain('secret');
    } finally {
      await server.close();
    }
  });
});

/** A POST with the request target as given (fetch and node:http normalize or refuse some). */
function rawPost(
  base: string,
  target: string,
  body: string,
  headers: Record<string, string>,
): Promise<{ status: number; body: string }> {
  const { hostname, port } = new URL(base);
  const head = Object.entries({ ...headers, 'content-length': String(Buffer.byteLength(body)) })
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () =>
      socket.end(
        `POST ${target} HTTP/1.1\r\nhost: ${hostname}:${port}\r\nconnection: close\r\n${head}\r\n${body}`,
      ),
    );
    let text = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (text += chunk));
    socket.on('error', reject);
    socket.on('end', () => {
      const [status = '', ...rest] = text.split('\r\n\r\n');
      resolve({ status: Number(status.split(' ')[1]), body: rest.join('\r\n\r\n') });
    });
  });
}
