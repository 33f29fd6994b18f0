import { request as httpRequest } from 'node:http';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import fc from 'fast-check';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { LicenseProxyEvent, LicenseProxyOptions } from '@multidrm/site-kit';
import {
  CID,
  HEADER,
  PLAYER_ORIGIN,
  SITE,
  postLicense,
  serve,
  PROXY_PATHS,
  startProxy,
  useProxyPath,
  startUpstream,
  type Served,
  type Upstream,
} from './support.ts';

// The proof the issue asks for: what must never leave the site, who may not steer it, and what the
// proxy does with slow services, big bodies and garbage. Upstream is the real emulator.
describe.each(PROXY_PATHS)('through the %s', (_path, path) => {
  beforeAll(() => useProxyPath(path));

  let upstream: Upstream;
  let proxy: Served;
  let authorized = 0;
  const MAX_BODY = 16 * 1024;

  beforeAll(async () => {
    upstream = await startUpstream();
    proxy = await startProxy(upstream, {
      forwardHeaders: ['user-agent', 'x-client-meta'],
      maxBodyBytes: MAX_BODY,
      authorize: () => {
        authorized += 1;
        return { allow: true, userId: 'user-1' };
      },
    });
  });
  afterAll(async () => {
    await proxy.close();
    await upstream.close();
  });
  afterEach(() => {
    upstream.reset();
    authorized = 0;
  });

  describe('what goes upstream', () => {
    it('never the user’s cookies, Authorization or any header not on the list', async () => {
      const answer = await postLicense(proxy.url, `?drmType=widevine&cid=${CID}`, {
        headers: {
          cookie: 'session=user-1; sid=secret-session',
          authorization: 'Bearer secret-bearer',
          'proxy-authorization': 'Basic c2VjcmV0',
          'x-forwarded-for': '10.0.0.1',
          'x-api-key': 'secret-api-key',
          'x-client-meta': 'eyJkZXZpY2UiOiJ0diJ9',
          'user-agent': 'TV/1.0',
        },
      });
      expect(answer.status).toBe(200);
      const sent = upstream.arrivals[0]?.headers ?? {};
      // Beside what the transport adds for the connection itself (host, connection, length), only
      // the content type per DRM, the token and the listed headers.
      const CONNECTION = [
        'host',
        'connection',
        'content-length',
        'accept',
        'accept-encoding',
        'accept-language',
        'sec-fetch-mode',
      ];
      expect(
        Object.keys(sent)
          .filter((h) => !CONNECTION.includes(h))
          .sort(),
      ).toEqual(['content-type', HEADER, 'user-agent', 'x-client-meta'].sort());
      expect(sent['x-client-meta']).toBe('eyJkZXZpY2UiOiJ0diJ9');
      expect(sent['user-agent']).toBe('TV/1.0');
      expect(JSON.stringify(sent)).not.toMatch(/secret|10\.0\.0\.1/);
    });

    it('always the fixed license URL, whatever the request says about where to go', async () => {
      const elsewhere = await serve((_req, res) => res.end('elsewhere'));
      const evil = new URL(elsewhere.url);
      try {
        const attempts: [string, Record<string, string>][] = [
          [`?drmType=widevine&cid=${CID}&licenseUrl=${elsewhere.url}/x`, {}],
          [`?drmType=widevine&cid=${CID}&url=${encodeURIComponent(elsewhere.url)}`, {}],
          [`?drmType=widevine&cid=${CID}`, { host: evil.host }],
          [`?drmType=widevine&cid=${CID}`, { 'x-forwarded-host': evil.host }],
          [`?drmType=widevine&cid=${CID}`, { 'x-original-url': `${elsewhere.url}/x` }],
          [`/../../ri/other.do?drmType=widevine&cid=${CID}`, {}],
          [`?drmType=widevine&cid=${encodeURIComponent(`${elsewhere.url}/x`)}`, {}],
        ];
        for (const [query, headers] of attempts) {
          await postLicense(proxy.url, query, { headers });
        }
        expect(upstream.arrivals.map((a) => `${a.method} ${a.url}`)).toEqual(
          attempts.map(() => 'POST /ri/licenseManager.do'),
        );
        expect(new Set(upstream.arrivals.map((a) => a.headers.host))).toEqual(
          new Set([new URL(upstream.licenseUrl).host]),
        );
      } finally {
        await elsewhere.close();
      }
    });
  });

  describe('CORS', () => {
    it('refuses a page on an unlisted origin before the site decides or the service hears of it', async () => {
      for (const origin of ['https://evil.example', 'null', `${PLAYER_ORIGIN}.evil.example`]) {
        const answer = await postLicense(proxy.url, `?drmType=widevine&cid=${CID}`, {
          headers: { origin, 'sec-fetch-site': 'cross-site' },
        });
        expect(answer.status).toBe(403);
        expect(answer.json()).toMatchObject({ code: 'ORIGIN_NOT_ALLOWED' });
        expect(answer.headers.get('access-control-allow-origin')).toBeNull();
        expect(answer.headers.get('access-control-allow-credentials')).toBeNull();
      }
      expect([authorized, upstream.arrivals.length]).toEqual([0, 0]);
    });

    it('refuses an unlisted origin’s preflight', async () => {
      const response = await fetch(`${proxy.url}/?drmType=widevine&cid=${CID}`, {
        method: 'OPTIONS',
        headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST' },
      });
      expect(response.status).toBe(403);
      expect(response.headers.get('access-control-allow-origin')).toBeNull();
      expect(await response.json()).toMatchObject({ code: 'ORIGIN_NOT_ALLOWED' });
    });
  });

  // The Node build calls the service over node:http; Workers and a site's own `fetch` use fetch.
  const TRANSPORTS: [string, Partial<LicenseProxyOptions>][] = [
    ['node:http, the Node build', {}],
    ['fetch, as on Workers', { fetch: (request: Request) => fetch(request) }],
  ];

  describe.each(TRANSPORTS)('a slow or odd license service, over %s', (_name, transport) => {
    it('is cut at the deadline with 504 UPSTREAM_TIMEOUT', async () => {
      const quick = await startProxy(upstream, { ...transport, timeouts: { upstreamMs: 200 } });
      // The emulator waits 20 s before it answers: far past the proxy's deadline.
      upstream.emulator.faults.set([{ fault: 'slow', ms: 20_000 }]);
      try {
        const answer = await postLicense(quick.url, `?drmType=widevine&cid=${CID}`);
        expect(answer.status).toBe(504);
        expect(answer.json()).toEqual({
          code: 'UPSTREAM_TIMEOUT',
          message: 'The license service did not answer within 200 ms; try again.',
        });
      } finally {
        await quick.close();
      }
    });

    it('that sends its head and then stalls is cut at the deadline too', async () => {
      const stalling = await serve((req, res) => {
        req.resume();
        res.writeHead(200, { 'content-type': 'application/octet-stream' });
        res.write('partial');
      });
      const quick = await startProxy(
        { ...upstream, licenseUrl: `${stalling.url}/ri/licenseManager.do` },
        { ...transport, timeouts: { upstreamMs: 200 } },
      );
      try {
        const answer = await postLicense(quick.url, `?drmType=widevine&cid=${CID}`);
        expect([answer.status, (answer.json() as { code: string }).code]).toEqual([
          504,
          'UPSTREAM_TIMEOUT',
        ]);
      } finally {
        await quick.close();
        await stalling.close();
      }
    });

    it('that cannot be reached is 502 UPSTREAM_UNREACHABLE', async () => {
      const gone = await serve(() => undefined);
      const url = gone.url;
      await gone.close();
      const orphan = await startProxy(
        { ...upstream, licenseUrl: `${url}/ri/licenseManager.do` },
        transport,
      );
      try {
        const answer = await postLicense(orphan.url, `?drmType=widevine&cid=${CID}`);
        expect([answer.status, (answer.json() as { code: string }).code]).toEqual([
          502,
          'UPSTREAM_UNREACHABLE',
        ]);
      } finally {
        await orphan.close();
      }
    });

    it('that redirects or answers too much is 502, and the redirect is not followed', async () => {
      const odd = await serve((req, res) => {
        req.resume();
        if (req.url?.startsWith('/redirect')) {
          res.writeHead(307, { location: `${upstream.licenseUrl}` }).end();
        } else res.end(Buffer.alloc(64 * 1024));
      });
      try {
        for (const [path, code] of [
          ['/redirect', 'UPSTREAM_BAD_ANSWER'],
          ['/big', 'UPSTREAM_ANSWER_TOO_LARGE'],
        ] as const) {
          const p = await startProxy(
            { ...upstream, licenseUrl: `${odd.url}${path}` },
            { ...transport, maxAnswerBytes: 1024 },
          );
          const answer = await postLicense(p.url, `?drmType=widevine&cid=${CID}`);
          await p.close();
          expect([answer.status, (answer.json() as { code: string }).code]).toEqual([502, code]);
        }
        expect(upstream.arrivals).toHaveLength(0);
      } finally {
        await odd.close();
      }
    });
  });

  describe('a body over the limit', () => {
    /**
     * Uploads `total` bytes in 16 KiB chunks, writing the next only when the socket drains, and stops
     * as soon as an answer arrives: how much was written then shows whether the proxy waited for all.
     */
    function upload(total: number, declare: boolean) {
      return new Promise<{ status: number; body: string; written: number }>((resolve, reject) => {
        const url = new URL(`${proxy.url}/?drmType=widevine&cid=${CID}`);
        const req = httpRequest(url, {
          method: 'POST',
          headers: declare ? { 'content-length': String(total) } : {},
        });
        let written = 0;
        let answered = false;
        const chunk = Buffer.alloc(16 * 1024, 0x61);
        const pump = () => {
          while (!answered && written < total) {
            written += chunk.length;
            if (!req.write(chunk)) return void req.once('drain', pump);
          }
          if (!answered) req.end();
        };
        req.on('response', (res) => {
          answered = true;
          const parts: Buffer[] = [];
          res.on('data', (c: Buffer) => parts.push(c));
          res.on('end', () => {
            resolve({
              status: res.statusCode ?? 0,
              body: Buffer.concat(parts).toString(),
              written,
            });
            req.destroy();
          });
        });
        req.on('error', (error) => (answered ? undefined : reject(error)));
        pump();
      });
    }

    it.each([
      ['declared in Content-Length', true],
      ['sent chunked, without a length', false],
    ])('%s is 413 BODY_TOO_LARGE before the upload ends', async (_name, declare) => {
      const total = 256 * 1024 * 1024;
      const answer = await upload(total, declare);
      expect(answer.status).toBe(413);
      expect(JSON.parse(answer.body)).toEqual({
        code: 'BODY_TOO_LARGE',
        message: `The license request body is over the limit of ${MAX_BODY} bytes.`,
      });
      expect(answer.written).toBeLessThan(total);
      // A declared length is refused before the site decides; a chunked body is read only after
      // the site has decided (it never reads a body for a request it refuses).
      expect([authorized, upstream.arrivals.length]).toEqual([declare ? 0 : 1, 0]);
    });
  });

  describe('>= 1000 malformed requests', () => {
    const KNOWN = new Set([
      'ORIGIN_NOT_ALLOWED',
      'METHOD_NOT_ALLOWED',
      'UNKNOWN_DRM',
      'BAD_CID',
      'NO_CERTIFICATE',
      'BAD_BODY',
      'BODY_TOO_LARGE',
    ]);
    const piece = fc.oneof(
      fc.constantFrom('widevine', 'WIDEVINE', 'fairplay', 'playready', 'ncg', 'clearkey', ''),
      fc.string({ maxLength: 30 }),
      fc.string({ unit: 'binary', maxLength: 30 }),
    );
    const query = fc
      .array(fc.tuple(fc.constantFrom('drmType', 'cid', 'mode', 'licenseUrl', 'x'), piece), {
        maxLength: 4,
      })
      .map((pairs) => `?${new URLSearchParams(pairs).toString()}`);
    const malformed = fc.record({
      method: fc.constantFrom('POST', 'POST', 'POST', 'GET', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'),
      query: fc.oneof(query, fc.constant(`?drmType=widevine&cid=${CID}`)),
      body: fc.oneof(
        fc.uint8Array({ maxLength: 2048 }),
        fc.string({ maxLength: 200 }).map((s) => new TextEncoder().encode(s)),
        fc.constant(new Uint8Array(MAX_BODY + 1)),
        fc.constant(new Uint8Array(0)),
      ),
      origin: fc.constantFrom(undefined, PLAYER_ORIGIN, 'https://evil.example', 'null', '*'),
      contentType: fc.constantFrom(undefined, 'application/json', 'text/plain', 'multipart/x'),
    });

    type Malformed = typeof malformed extends fc.Arbitrary<infer T> ? T : never;

    const ownCode = (text: string): string | undefined => {
      try {
        const body = JSON.parse(text) as { code?: unknown };
        return typeof body.code === 'string' ? body.code : undefined;
      } catch {
        return undefined;
      }
    };

    const heapAfterGc = () => {
      setFlagsFromString('--expose-gc');
      (runInNewContext('gc') as () => void)();
      return process.memoryUsage().heapUsed;
    };

    it('no 5xx from the proxy, every failure a known code and a sentence, and memory flat', async () => {
      const seen: LicenseProxyEvent[] = [];
      const fuzzed = await startProxy(upstream, {
        maxBodyBytes: MAX_BODY,
        onEvent: (event) => seen.push(event),
      });
      const send = async (sample: Malformed) => {
        const headers: Record<string, string> = { cookie: 'session=user-1' };
        if (sample.origin !== undefined) headers['origin'] = sample.origin;
        if (sample.contentType !== undefined) headers['content-type'] = sample.contentType;
        const bodyless = sample.method === 'GET' || sample.method === 'OPTIONS';
        const response = await fetch(`${fuzzed.url}/drm/license${sample.query}`, {
          method: sample.method,
          headers,
          ...(bodyless ? {} : { body: sample.body as Uint8Array<ArrayBuffer> }),
        });
        return { status: response.status, text: await response.text() };
      };
      try {
        const samples = fc.sample(malformed, { numRuns: 1200, seed: 26 });
        for (const sample of samples.slice(0, 200)) await send(sample);
        const before = heapAfterGc();
        const problems: string[] = [];
        for (const sample of samples.slice(200)) {
          const { status, text } = await send(sample);
          if (status >= 500) problems.push(`${status} ${text.slice(0, 80)}`);
          // The proxy's own answers carry `code`; the service's (relayed) carry its own members.
          const own = status >= 400 ? ownCode(text) : undefined;
          if (own !== undefined && !KNOWN.has(own))
            problems.push(`unknown code: ${text.slice(0, 80)}`);
          if (/\bat \w+ \(|node:internal|Error:/.test(text)) problems.push(`stack: ${text}`);
          if (text.includes(SITE.siteKey) || text.includes(SITE.accessKey)) problems.push('key');
        }
        const grown = heapAfterGc() - before;
        expect(problems).toEqual([]);
        expect(seen.filter((e) => e.type === 'error')).toEqual([]);
        // 1000 requests leave less than 4 MiB behind: nothing is kept per request.
        expect(grown).toBeLessThan(4 * 1024 * 1024);
      } finally {
        await fuzzed.close();
      }
    }, 60_000);
  });
});
