import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { verifyLicenseToken, type LicenseProxyEvent } from '@multidrm/site-kit';
import {
  CID,
  HEADER,
  KEY,
  KID,
  PLAYER_ORIGIN,
  SITE,
  postLicense,
  PROXY_PATHS,
  startProxy,
  useProxyPath,
  startUpstream,
  type Served,
  type Upstream,
} from './support.ts';

// site-kit's license proxy on node:http in front of the real emulator: what goes upstream, what
// comes back, and the proxy's own answers.
describe.each(PROXY_PATHS)('through the %s', (_path, path) => {
  beforeAll(() => useProxyPath(path));

  let upstream: Upstream;
  let proxy: Served;
  const events: LicenseProxyEvent[] = [];

  beforeAll(async () => {
    upstream = await startUpstream();
    proxy = await startProxy(upstream, { onEvent: (event) => events.push(event) });
  });
  afterAll(async () => {
    await proxy.close();
    await upstream.close();
  });
  afterEach(() => {
    upstream.reset();
    events.length = 0;
  });

  const b64url = (hex: string) => Buffer.from(hex, 'hex').toString('base64url');
  const tokenOf = (headers: Record<string, unknown>) =>
    verifyLicenseToken(String(headers[HEADER]), SITE);

  describe('a license request through the proxy', () => {
    it('reaches the service with a v2 token for the signed-in user and the body unchanged, and the license comes back', async () => {
      const answer = await postLicense(proxy.url, `?drmType=widevine&cid=${CID}`);
      expect(answer.status).toBe(200);
      expect(answer.json()).toMatchObject({ keys: [{ kid: b64url(KID), k: b64url(KEY) }] });
      expect(answer.headers.get('content-type')).toMatch(/^application\/json/);
      expect(answer.headers.get('cache-control')).toBe('no-store');

      const [arrival] = upstream.arrivals;
      expect(arrival).toMatchObject({ method: 'POST', url: '/ri/licenseManager.do' });
      expect(arrival?.headers['content-type']).toBe('application/octet-stream');
      expect(arrival?.body.toString()).toBe(
        JSON.stringify({ kids: [b64url(KID)], type: 'temporary' }),
      );
      expect(tokenOf(arrival?.headers ?? {})).toMatchObject({
        version: 2,
        cid: CID,
        userId: 'user-1',
        drmType: 'Widevine',
        siteId: SITE.siteId,
      });
      expect(events.map((e) => e.type)).toEqual(['request', 'decision', 'upstream']);
      expect(JSON.stringify(events)).not.toContain(String(arrival?.headers[HEADER]));
    });

    it.each([
      ['playready', 'PlayReady', 'application/octet-stream', Buffer.from([0x3c, 0x00, 0xff, 0x7f])],
      [
        'fairplay',
        'FairPlay',
        'application/x-www-form-urlencoded',
        Buffer.from('spc=AAEC%2B%2F%3D'),
      ],
      ['FairPlay', 'FairPlay', 'application/x-www-form-urlencoded', Buffer.from('spc=AAEC+/=')],
      ['ncg', 'NCG', 'application/x-www-form-urlencoded', Buffer.from('challenge=1')],
    ])(
      'drmType=%s goes up as %s with content type %s and the bytes as sent',
      async (query, drmType, contentType, body) => {
        const answer = await postLicense(proxy.url, `?drmType=${query}&cid=${CID}`, {
          body,
          headers: { 'content-type': 'text/plain' },
        });
        const [arrival] = upstream.arrivals;
        expect(arrival?.headers['content-type']).toBe(contentType);
        expect(arrival?.body.equals(body)).toBe(true);
        expect(tokenOf(arrival?.headers ?? {}).drmType).toBe(drmType);
        // The emulator issues ClearKey licenses only: its refusal is relayed as it came.
        expect([answer.status, answer.text]).toEqual([200, upstream.answers[0]?.toString()]);
      },
    );

    it('drmType=wiseplay goes up as Wiseplay with application/json and the JSON as sent, and the license comes back', async () => {
      const body = Buffer.from(JSON.stringify({ kids: [b64url(KID)], type: 'temporary' }));
      const answer = await postLicense(proxy.url, `?drmType=wiseplay&cid=${CID}`, {
        body,
        headers: { 'content-type': 'text/plain' },
      });
      const [arrival] = upstream.arrivals;
      expect(arrival?.headers['content-type']).toBe('application/json');
      expect(arrival?.body.equals(body)).toBe(true);
      expect(tokenOf(arrival?.headers ?? {}).drmType).toBe('Wiseplay');
      expect(answer.status).toBe(200);
      expect(answer.text).toBe(upstream.answers[0]?.toString());
      expect(answer.text).toContain(b64url(KEY));
    });

    it('drmType=clearkey is a GET of the emulator’s ClearKey path with siteId and cid, and its keys come back', async () => {
      const answer = await postLicense(proxy.url, `?drmType=clearkey&cid=${CID}`);
      expect(answer.status).toBe(200);
      expect(answer.json()).toEqual({
        keys: [{ kty: 'oct', kid: b64url(KID), k: b64url(KEY) }],
        type: 'temporary',
      });
      const [arrival] = upstream.arrivals;
      expect(arrival).toMatchObject({
        method: 'GET',
        url: `/ri/clearkey/licenseManager.do?siteId=${SITE.siteId}&cid=${CID}`,
      });
      expect(tokenOf(arrival?.headers ?? {})).toMatchObject({ cid: CID, userId: 'user-1' });
      expect(events[0]).toEqual({
        type: 'request',
        kind: 'license',
        drmType: 'ClearKey',
        cid: CID,
      });
    });

    it("relays the service's refusal (HTTP 200 + errorCode) byte for byte", async () => {
      upstream.emulator.faults.set([{ fault: 'token-expired' }]);
      const answer = await postLicense(proxy.url, `?drmType=widevine&cid=${CID}`);
      expect(answer.status).toBe(200);
      expect(answer.json()).toMatchObject({ errorCode: '7011' });
      expect(answer.text).toBe(upstream.answers[0]?.toString());
      expect(events.at(-1)).toMatchObject({ type: 'upstream', status: 200, errorCode: '7011' });
    });

    it("answers a server error of the service with its own 502 UPSTREAM_ERROR, the service's page not passed on", async () => {
      upstream.emulator.faults.set([{ fault: 'http-error', status: 503 }]);
      const answer = await postLicense(proxy.url, `?drmType=widevine&cid=${CID}`);
      expect(answer.status).toBe(502);
      expect(answer.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(answer.json()).toEqual({
        code: 'UPSTREAM_ERROR',
        message: 'The license service failed (HTTP 503); try again later.',
      });
      expect(answer.text).not.toContain(upstream.answers[0]?.toString());
    });
  });

  describe('the token', () => {
    it('is v1 when the site grants a v1 policy', async () => {
      const v1 = await startProxy(upstream, {
        authorize: () => ({
          allow: true,
          userId: 'user-2',
          policy: { playback_policy: { limit: true, duration: 600 } },
        }),
      });
      try {
        await postLicense(v1.url, `?drmType=widevine&cid=${CID}`);
        expect(tokenOf(upstream.arrivals[0]?.headers ?? {})).toMatchObject({
          version: 1,
          userId: 'user-2',
        });
      } finally {
        await v1.close();
      }
    });

    it('goes in the configured header, and a value the client sends in it never does', async () => {
      await postLicense(proxy.url, `?drmType=widevine&cid=${CID}`, {
        headers: { [HEADER]: 'forged-by-the-client' },
      });
      const sent = upstream.arrivals[0]?.headers[HEADER];
      expect(sent).not.toBe('forged-by-the-client');
      expect(tokenOf(upstream.arrivals[0]?.headers ?? {}).userId).toBe('user-1');
    });
  });

  describe('json response format', () => {
    const jsonGrant = () => ({
      allow: true as const,
      userId: 'u',
      responseFormat: 'json' as const,
    });

    it('is relayed as the service sent it by default', async () => {
      const plain = await startProxy(upstream, { authorize: jsonGrant });
      try {
        const answer = await postLicense(plain.url, `?drmType=widevine&cid=${CID}`);
        expect(answer.json()).toMatchObject({ license: expect.any(String), device_info: {} });
      } finally {
        await plain.close();
      }
    });

    it('is unwrapped to the license with unwrapJson, and device_info goes to onEvent', async () => {
      const seen: LicenseProxyEvent[] = [];
      const unwrapping = await startProxy(upstream, {
        authorize: jsonGrant,
        unwrapJson: true,
        onEvent: (event) => seen.push(event),
      });
      try {
        const answer = await postLicense(unwrapping.url, `?drmType=widevine&cid=${CID}`);
        const wrapped = JSON.parse(upstream.answers[0]?.toString() ?? '{}') as { license: string };
        expect(answer.status).toBe(200);
        // Widevine's license is hex in json, a ClearKey stand-in's too: the proxy hands the CDM its bytes.
        expect(answer.text).toBe(Buffer.from(wrapped.license, 'hex').toString());
        expect(JSON.parse(answer.text)).toMatchObject({ keys: [{ kid: b64url(KID) }] });
        expect(seen.at(-1)).toMatchObject({
          type: 'upstream',
          deviceInfo: { device_id: expect.any(String) },
        });
      } finally {
        await unwrapping.close();
      }
    });
  });

  describe('certificates and server info', () => {
    it.each([
      ['widevine', '/ri/widevineCert.do?siteId=PROXYSITE'],
      ['fairplay', '/ri/fpsKeyManager.do?siteId=PROXYSITE'],
    ])(
      'GET ?drmType=%s is passed through to %s without a token, cookie or site decision',
      async (drm, path) => {
        const response = await fetch(`${proxy.url}/drm/license?drmType=${drm}`, {
          headers: { cookie: 'session=user-1' },
        });
        const text = await response.text();
        expect(upstream.arrivals).toHaveLength(1);
        expect(upstream.arrivals[0]).toMatchObject({ method: 'GET', url: path });
        expect(upstream.arrivals[0]?.headers).not.toHaveProperty(HEADER);
        expect(upstream.arrivals[0]?.headers).not.toHaveProperty('cookie');
        expect(events.map((e) => e.type)).toEqual(['request', 'upstream']);
        // Relayed as the service answered (this emulator has no certificate door yet: its 404).
        expect([response.status, text]).toEqual([
          events[1]?.type === 'upstream' ? events[1].status : 0,
          upstream.answers[0]?.toString(),
        ]);
      },
    );

    it('GET for a DRM without a certificate is a 400 NO_CERTIFICATE that goes nowhere', async () => {
      const response = await fetch(`${proxy.url}/drm/license?drmType=playready`);
      expect(response.status).toBe(400);
      expect(await response.json()).toMatchObject({ code: 'NO_CERTIFICATE' });
      expect(upstream.arrivals).toHaveLength(0);
    });

    it('NCG mode=getserverinfo goes up without a token', async () => {
      await postLicense(proxy.url, '?drmType=ncg&mode=getserverinfo', { body: 'x' });
      expect(upstream.arrivals[0]?.url).toBe('/ri/licenseManager.do?mode=getserverinfo');
      expect(upstream.arrivals[0]?.headers).not.toHaveProperty(HEADER);
    });
  });

  describe("the proxy's own failures: a status and JSON {code, message}, nothing upstream", () => {
    it.each([
      ['no drmType', `?cid=${CID}`, 400, 'UNKNOWN_DRM'],
      ['an unknown drmType', `?drmType=betamax&cid=${CID}`, 400, 'UNKNOWN_DRM'],
      ['drmType twice', `?drmType=widevine&drmType=fairplay&cid=${CID}`, 400, 'UNKNOWN_DRM'],
      ['no cid', '?drmType=widevine', 400, 'BAD_CID'],
      ['cid twice', `?drmType=widevine&cid=a&cid=b`, 400, 'BAD_CID'],
      ['a cid with a control character', '?drmType=widevine&cid=a%0Ab', 400, 'BAD_CID'],
      ['a cid over 200 characters', `?drmType=widevine&cid=${'c'.repeat(201)}`, 400, 'BAD_CID'],
    ])('%s', async (_name, query, status, code) => {
      const answer = await postLicense(proxy.url, query);
      expect(answer.status).toBe(status);
      expect(answer.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(answer.json()).toEqual({ code, message: expect.stringMatching(/^[A-Za-z].+\.$/) });
      expect(upstream.arrivals).toHaveLength(0);
    });

    it('an empty body is 400 BAD_BODY', async () => {
      const answer = await postLicense(proxy.url, `?drmType=widevine&cid=${CID}`, { body: '' });
      expect([answer.status, (answer.json() as { code: string }).code]).toEqual([400, 'BAD_BODY']);
    });

    it('a PUT is 405 with Allow', async () => {
      const response = await fetch(`${proxy.url}/?drmType=widevine&cid=${CID}`, { method: 'PUT' });
      expect(response.status).toBe(405);
      expect(response.headers.get('allow')).toBe('GET, POST, OPTIONS');
      expect(await response.json()).toMatchObject({ code: 'METHOD_NOT_ALLOWED' });
    });

    it.each([
      ['a signed-out user', {}, 401, 'Sign in first.'],
      ['a user the site does not entitle', { cookie: 'session=banned' }, 403, 'Not entitled.'],
    ])(
      '%s gets SITE_REFUSED with the site status and reason, and never reaches the service',
      async (_n, headers, status, message) => {
        const answer = await postLicense(proxy.url, `?drmType=widevine&cid=${CID}`, {
          headers: { cookie: '', ...headers },
        });
        expect(answer.status).toBe(status);
        expect(answer.json()).toEqual({ code: 'SITE_REFUSED', message });
        expect(upstream.arrivals).toHaveLength(0);
      },
    );

    it('an authorize that throws is a 500 SITE_ERROR without its text; onEvent gets its class, onError the error', async () => {
      const seen: LicenseProxyEvent[] = [];
      const thrown: unknown[] = [];
      const broken = await startProxy(upstream, {
        authorize: () => {
          throw new Error('db password=hunter2 at Db.connect');
        },
        onEvent: (event) => seen.push(event),
        onError: (error, asked) => thrown.push([error, asked]),
      });
      try {
        const answer = await postLicense(broken.url, `?drmType=widevine&cid=${CID}`);
        expect(answer.status).toBe(500);
        expect(answer.json()).toEqual({
          code: 'SITE_ERROR',
          message: 'The site could not decide; try again later.',
        });
        expect(seen.at(-1)).toMatchObject({
          type: 'error',
          code: 'SITE_ERROR',
          reason: 'authorize threw an error of class Error; the error itself went to onError',
        });
        expect(JSON.stringify(seen)).not.toContain('hunter2');
        expect(thrown).toEqual([
          [new Error('db password=hunter2 at Db.connect'), { drmType: 'Widevine', cid: CID }],
        ]);
        expect(upstream.arrivals).toHaveLength(0);
      } finally {
        await broken.close();
      }
    });

    it.each([
      ['a decision of the wrong shape', () => ({ allow: 'yes' }), 500, 'SITE_ERROR'],
      [
        'a policy the issuer refuses',
        () => ({ allow: true, policy: { policy_version: 7 } }),
        500,
        'SITE_ERROR',
      ],
      [
        'an authorize that never decides',
        () => new Promise<never>(() => undefined),
        503,
        'SITE_TIMEOUT',
      ],
    ])('%s is %i %s', async (_name, authorize, status, code) => {
      const odd = await startProxy(upstream, {
        authorize: authorize as never,
        timeouts: { authorizeMs: 50 },
      });
      try {
        const answer = await postLicense(odd.url, `?drmType=widevine&cid=${CID}`);
        expect([answer.status, (answer.json() as { code: string }).code]).toEqual([status, code]);
        expect(upstream.arrivals).toHaveLength(0);
      } finally {
        await odd.close();
      }
    });
  });

  describe('CORS', () => {
    it('answers a listed origin’s preflight with that origin, credentials and the methods', async () => {
      const response = await fetch(`${proxy.url}/drm/license?drmType=widevine&cid=${CID}`, {
        method: 'OPTIONS',
        headers: { origin: PLAYER_ORIGIN, 'access-control-request-method': 'POST' },
      });
      expect(response.status).toBe(204);
      expect(Object.fromEntries(response.headers)).toMatchObject({
        'access-control-allow-origin': PLAYER_ORIGIN,
        'access-control-allow-credentials': 'true',
        'access-control-allow-methods': 'GET, POST, OPTIONS',
        'access-control-allow-headers': 'content-type, user-agent',
        vary: 'Origin',
      });
    });

    it('answers a license to a listed origin with that origin and credentials, never *', async () => {
      const answer = await postLicense(proxy.url, `?drmType=widevine&cid=${CID}`, {
        headers: { origin: PLAYER_ORIGIN },
      });
      expect(answer.status).toBe(200);
      expect(answer.headers.get('access-control-allow-origin')).toBe(PLAYER_ORIGIN);
      expect(answer.headers.get('access-control-allow-credentials')).toBe('true');
    });

    it('serves a page on its own origin (Sec-Fetch-Site: same-origin) without listing it', async () => {
      const answer = await postLicense(proxy.url, `?drmType=widevine&cid=${CID}`, {
        headers: { origin: 'https://site.example', 'sec-fetch-site': 'same-origin' },
      });
      expect(answer.status).toBe(200);
      expect(answer.headers.get('access-control-allow-origin')).toBeNull();
    });

    it('serves a player without Origin (a TV, a native app)', async () => {
      const answer = await postLicense(proxy.url, `?drmType=widevine&cid=${CID}`);
      expect(answer.status).toBe(200);
      expect(answer.headers.get('access-control-allow-origin')).toBeNull();
    });
  });
});
