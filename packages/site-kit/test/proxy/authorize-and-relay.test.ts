import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { verifyLicenseToken, type LicenseProxyEvent, type ProxyAsk } from '../../src/index.ts';
import { HEADER, LICENSE, license, proxyFor, SITE, startService, type Service } from './support.ts';

// What the proxy decides and what it passes on, against a stand-in service on a real HTTP server:
// the site's decision (a grant's user in the token, a refusal's status), the query's one cid and
// drmType, and what of the service's answer reaches the browser.
let service: Service;
beforeAll(async () => {
  service = await startService();
});
afterAll(() => service.close());
beforeEach(() => {
  service.arrivals.length = 0;
  service.answer = LICENSE;
});

const tokenOf = (arrival: { headers: Record<string, unknown> } | undefined) =>
  verifyLicenseToken(String(arrival?.headers[HEADER]), SITE);

describe('the site decides', () => {
  it("puts the grant's user, the cid and the DRM in the token, and the body goes unchanged", async () => {
    const asked: ProxyAsk[] = [];
    const proxy = proxyFor(service, {
      authorize: (_request, ask) => {
        asked.push(ask);
        return { allow: true, userId: 'user-7' };
      },
    });
    const response = await proxy(license('?drmType=widevine&cid=movie-1'));
    expect(response.status).toBe(200);
    expect(asked).toEqual([{ drmType: 'Widevine', cid: 'movie-1' }]);
    const [arrival] = service.arrivals;
    expect(arrival).toMatchObject({ method: 'POST', url: '/ri/licenseManager.do' });
    expect(arrival?.headers['content-type']).toBe('application/octet-stream');
    expect([...(arrival?.body ?? [])]).toEqual([0x08, 0x04, 0x12, 0x10]);
    expect(tokenOf(arrival)).toMatchObject({
      userId: 'user-7',
      cid: 'movie-1',
      drmType: 'Widevine',
      siteId: SITE.siteId,
    });
  });

  it.each([
    [401, 'Sign in first.'],
    [403, 'Not entitled.'],
  ] as const)(
    'refuses with the site’s %i and reason; the service hears nothing',
    async (status, reason) => {
      const proxy = proxyFor(service, { authorize: () => ({ allow: false, status, reason }) });
      const response = await proxy(license('?drmType=widevine&cid=movie-1'));
      expect(response.status).toBe(status);
      expect(await response.json()).toEqual({ code: 'SITE_REFUSED', message: reason });
      expect(service.arrivals).toEqual([]);
    },
  );

  it('reads no body for a request the site refuses, nor for one from another site', async () => {
    let pulled = 0;
    const body = () =>
      new ReadableStream<Uint8Array>(
        {
          pull(controller) {
            pulled++;
            controller.enqueue(new Uint8Array([1]));
            controller.close();
          },
        },
        { highWaterMark: 0 },
      );
    const refusing = proxyFor(service, {
      authorize: () => ({ allow: false, status: 403, reason: 'Not entitled.' }),
    });
    const asks = [
      [refusing, {}],
      [proxyFor(service), { 'sec-fetch-site': 'cross-site' }],
    ] as const;
    for (const [proxy, headers] of asks) {
      const request = license('?drmType=widevine&cid=movie-1', {
        body: body(),
        headers,
        duplex: 'half',
      } as RequestInit);
      expect((await proxy(request)).status).toBe(403);
    }
    expect(pulled).toBe(0);
  });

  it.each([
    ['a cid given twice', '?drmType=widevine&cid=a&cid=b', 'BAD_CID'],
    ['no cid', '?drmType=widevine', 'BAD_CID'],
    ['an empty cid', '?drmType=widevine&cid=', 'BAD_CID'],
    ['a cid of 201 characters', `?drmType=widevine&cid=${'c'.repeat(201)}`, 'BAD_CID'],
    ['a cid with a line feed', '?drmType=widevine&cid=a%0Ab', 'BAD_CID'],
    ['a drmType given twice', '?drmType=widevine&drmType=playready&cid=a', 'UNKNOWN_DRM'],
    ['no drmType', '?cid=a', 'UNKNOWN_DRM'],
    ['a drmType the proxy does not know', '?drmType=primetime&cid=a', 'UNKNOWN_DRM'],
  ])('refuses %s with 400 %s before the site decides', async (_what, query, code) => {
    let decided = 0;
    const proxy = proxyFor(service, {
      authorize: () => {
        decided++;
        return { allow: true };
      },
    });
    const response = await proxy(license(query));
    expect(response.status).toBe(400);
    expect(((await response.json()) as { code: string }).code).toBe(code);
    expect([decided, service.arrivals.length]).toEqual([0, 0]);
  });

  it('takes a cid of 200 characters', async () => {
    const cid = 'c'.repeat(200);
    const response = await proxyFor(service)(license(`?drmType=widevine&cid=${cid}`));
    expect(response.status).toBe(200);
    expect(tokenOf(service.arrivals[0]).cid).toBe(cid);
  });
});

describe('an authorize that throws', () => {
  const secret = 'postgres://app:s3cret-pw@db.internal/site';

  it('is a 500 SITE_ERROR; onEvent gets its class only, onError the error and the ask', async () => {
    const events: LicenseProxyEvent[] = [];
    const errors: unknown[] = [];
    const thrown = new TypeError(`connect ${secret} failed`);
    const proxy = proxyFor(service, {
      authorize: () => {
        throw thrown;
      },
      onEvent: (event) => events.push(event),
      onError: (error, asked) => errors.push(error, asked),
    });
    const response = await proxy(license('?drmType=playready&cid=movie-1'));
    expect(response.status).toBe(500);
    expect(await response.json()).toEqual({
      code: 'SITE_ERROR',
      message: 'The site could not decide; try again later.',
    });
    expect(events.at(-1)).toEqual({
      type: 'error',
      status: 500,
      code: 'SITE_ERROR',
      reason: 'authorize threw an error of class TypeError; the error itself went to onError',
    });
    expect(JSON.stringify(events)).not.toContain('s3cret');
    expect(errors).toEqual([thrown, { drmType: 'PlayReady', cid: 'movie-1' }]);
    expect(service.arrivals).toEqual([]);
  });

  it('that rejects is the same, and an onError that throws changes nothing', async () => {
    const events: LicenseProxyEvent[] = [];
    const proxy = proxyFor(service, {
      authorize: () => Promise.reject(new Error(secret)),
      onEvent: (event) => events.push(event),
      onError: () => {
        throw new Error('the reporter is down');
      },
    });
    const response = await proxy(license('?drmType=widevine&cid=movie-1'));
    expect(response.status).toBe(500);
    expect(events.at(-1)).toMatchObject({
      code: 'SITE_ERROR',
      reason: 'authorize threw an error of class Error; the error itself went to onError',
    });
  });
});

describe('the origin rule, the token endpoint’s', () => {
  const PLAYER = 'https://player.example';
  const ask = (headers: Record<string, string>) =>
    proxyFor(service, { cors: { origins: [PLAYER] } })(
      license('?drmType=widevine&cid=movie-1', { headers }),
    );

  it.each([
    ['Sec-Fetch-Site: cross-site without Origin', { 'sec-fetch-site': 'cross-site' }],
    ['Sec-Fetch-Site: same-site without Origin', { 'sec-fetch-site': 'same-site' }],
    [
      'an unlisted Origin, cross-site',
      { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' },
    ],
    [
      'an unlisted Origin of another host, without Sec-Fetch-Site',
      { origin: 'https://evil.example' },
    ],
  ])('refuses %s with 403 ORIGIN_NOT_ALLOWED', async (_what, headers) => {
    const response = await ask(headers);
    expect(response.status).toBe(403);
    expect(((await response.json()) as { code: string }).code).toBe('ORIGIN_NOT_ALLOWED');
    expect(service.arrivals).toEqual([]);
  });

  it.each([
    ['no Origin nor Sec-Fetch-Site (a TV, an app)', {}],
    ['a listed origin, cross-site', { origin: PLAYER, 'sec-fetch-site': 'cross-site' }],
    ['its own page', { origin: 'https://site.example', 'sec-fetch-site': 'same-origin' }],
    ['its own origin without Sec-Fetch-Site', { origin: 'https://site.example' }],
    ['a navigation the user started', { 'sec-fetch-site': 'none' }],
  ])('serves %s', async (_what, headers) => {
    expect((await ask(headers)).status).toBe(200);
  });
});

describe("the service's answer", () => {
  const stack =
    '<html><body><pre>java.lang.NullPointerException\n\tat com.example.License.issue(License.java:42)</pre></body></html>';

  it('is relayed as it came: status, content type and bytes', async () => {
    const response = await proxyFor(service)(license('?drmType=widevine&cid=movie-1'));
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/octet-stream');
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect([...new Uint8Array(await response.arrayBuffer())]).toEqual([0x08, 0x02, 0x12, 0x00]);
  });

  it('a refusal (HTTP 200, JSON errorCode) is relayed unchanged, and a 4xx in JSON too', async () => {
    for (const answer of [
      {
        status: 200,
        contentType: 'application/json',
        body: '{"errorCode":"7011","message":"Token expired"}',
      },
      { status: 400, contentType: 'application/json;charset=UTF-8', body: '{"error":"bad"}' },
    ]) {
      service.answer = answer;
      const response = await proxyFor(service)(license('?drmType=widevine&cid=movie-1'));
      expect(response.status).toBe(answer.status);
      expect(response.headers.get('content-type')).toBe(answer.contentType);
      expect(await response.text()).toBe(answer.body);
    }
  });

  it('a refusal in a content type no license answer has keeps its body, typed as JSON', async () => {
    const body = '{"errorCode":"7011","message":"Token expired"}';
    service.answer = { status: 200, contentType: 'text/html;charset=UTF-8', body };
    const response = await proxyFor(service)(license('?drmType=widevine&cid=movie-1'));
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(await response.text()).toBe(body);
  });

  it.each([500, 502, 503])(
    'a server error (%i) with its error page becomes 502 UPSTREAM_ERROR',
    async (status) => {
      service.answer = { status, contentType: 'text/html', body: stack };
      const events: LicenseProxyEvent[] = [];
      const proxy = proxyFor(service, { onEvent: (event) => events.push(event) });
      const response = await proxy(license('?drmType=widevine&cid=movie-1'));
      expect(response.status).toBe(502);
      expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(await response.json()).toEqual({
        code: 'UPSTREAM_ERROR',
        message: `The license service failed (HTTP ${status}); try again later.`,
      });
      expect(events.filter((e) => e.type === 'upstream')).toMatchObject([{ status }]);
    },
  );

  it.each([
    [200, 'text/html; charset=utf-8'],
    [404, 'text/html'],
    [200, 'image/svg+xml'],
  ])('a %i answer in %s becomes 502 UPSTREAM_BAD_ANSWER', async (status, contentType) => {
    service.answer = { status, contentType, body: stack };
    const response = await proxyFor(service)(license('?drmType=widevine&cid=movie-1'));
    expect(response.status).toBe(502);
    const body = await response.text();
    expect(JSON.parse(body)).toMatchObject({ code: 'UPSTREAM_BAD_ANSWER' });
    expect(body).not.toContain('NullPointerException');
  });

  it('a refusal (JSON errorCode) with a 5xx status is relayed as it came: players read it', async () => {
    const body = '{"errorCode":"9999","message":"Internal error"}';
    service.answer = { status: 503, contentType: 'application/json', body };
    const response = await proxyFor(service)(license('?drmType=widevine&cid=movie-1'));
    expect([response.status, await response.text()]).toEqual([503, body]);
  });

  it('an answer without a content type is relayed as bytes the browser may not sniff', async () => {
    service.answer = { status: 200, contentType: null, body: '<script>alert(1)</script>' };
    const response = await proxyFor(service)(license('?drmType=widevine&cid=movie-1'));
    expect(response.headers.get('content-type')).toBe('application/octet-stream');
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
  });

  it.each([
    ['no options', {}],
    ['onEvent', { onEvent: () => undefined }],
    ['unwrapJson', { unwrapJson: true }],
  ])(
    'an errorCode that is an object is 502 UPSTREAM_BAD_ANSWER with %s',
    async (_what, options) => {
      service.answer = {
        status: 200,
        contentType: 'application/json',
        body: '{"errorCode":{"toString":1}}',
      };
      const response = await proxyFor(service, options)(license('?drmType=widevine&cid=movie-1'));
      expect(response.status).toBe(502);
      expect(await response.json()).toEqual({
        code: 'UPSTREAM_BAD_ANSWER',
        message:
          'The license service answered a refusal whose errorCode is neither text nor a number.',
      });
    },
  );

  it('an errorCode as a number is read as the refusal it is', async () => {
    const events: LicenseProxyEvent[] = [];
    service.answer = { status: 200, contentType: 'application/json', body: '{"errorCode":7011}' };
    const proxy = proxyFor(service, { onEvent: (event) => events.push(event) });
    const response = await proxy(license('?drmType=widevine&cid=movie-1'));
    expect(response.status).toBe(200);
    expect(events.find((e) => e.type === 'upstream')).toMatchObject({ errorCode: '7011' });
  });
});

describe('a fetch upstream (the `fetch` option)', () => {
  it.each([
    [
      'throws at once',
      () => {
        throw new TypeError('invalid header value');
      },
    ],
    ['rejects', () => Promise.reject(new TypeError('fetch failed'))],
  ])('that %s is 502 UPSTREAM_UNREACHABLE', async (_what, fetch) => {
    const response = await proxyFor(service, { fetch })(license('?drmType=widevine&cid=movie-1'));
    expect(response.status).toBe(502);
    expect(await response.json()).toEqual({
      code: 'UPSTREAM_UNREACHABLE',
      message: 'The license service could not be reached; try again later.',
    });
  });
});

describe('the deadline holds against a fetch that ignores the abort signal', () => {
  const timeouts = { upstreamMs: 50 };
  it.each([
    ['never answers', () => new Promise<Response>(() => undefined)],
    [
      'sends a head and a first chunk, and never ends its body',
      async () =>
        new Response(
          new ReadableStream<Uint8Array>({
            start: (controller) => controller.enqueue(new Uint8Array([8])),
          }),
        ),
    ],
  ])('one that %s is 504 UPSTREAM_TIMEOUT', async (_what, fetch) => {
    const response = await proxyFor(service, { fetch, timeouts })(
      license('?drmType=widevine&cid=movie-1'),
    );
    expect(response.status).toBe(504);
    expect(((await response.json()) as { code: string }).code).toBe('UPSTREAM_TIMEOUT');
  });
});

describe('ClearKey (wire addendum 7)', () => {
  it('is a GET of the ClearKey license URL with siteId and cid, the token in its header', async () => {
    const keys =
      '{"keys":[{"kty":"oct","kid":"ABEiM0RVZneImaq7zN3u_w","k":"Dx4tPEtaaXiHlqW0w9Lh8A"}],"type":"temporary"}';
    service.answer = { status: 200, contentType: 'application/json', body: keys };
    const asked: ProxyAsk[] = [];
    const events: LicenseProxyEvent[] = [];
    const proxy = proxyFor(service, {
      authorize: (_request, ask) => {
        asked.push(ask);
        return { allow: true, userId: 'user-3' };
      },
      onEvent: (event) => events.push(event),
    });
    const response = await proxy(license('?drmType=clearkey&cid=movie%201'));
    expect(response.status).toBe(200);
    expect(await response.text()).toBe(keys);
    expect(asked).toEqual([{ drmType: 'ClearKey', cid: 'movie 1' }]);
    const [arrival] = service.arrivals;
    expect(arrival).toMatchObject({
      method: 'GET',
      url: `/ri/clearkey/licenseManager.do?siteId=${SITE.siteId}&cid=movie%201`,
    });
    expect(arrival?.body.length).toBe(0);
    expect(tokenOf(arrival)).toMatchObject({ userId: 'user-3', cid: 'movie 1' });
    expect(events[0]).toEqual({
      type: 'request',
      kind: 'license',
      drmType: 'ClearKey',
      cid: 'movie 1',
    });
  });

  it('goes to clearKeyUrl when given', async () => {
    const clearKeyUrl = service.licenseUrl.replace('/ri/licenseManager.do', '/ck/license?x=1');
    await proxyFor(service, { clearKeyUrl })(license('?drmType=clearkey&cid=m'));
    expect(service.arrivals[0]?.url).toBe(`/ck/license?siteId=${SITE.siteId}&cid=m`);
  });

  it('has no certificate', async () => {
    const response = await proxyFor(service)(
      new Request('https://site.example/drm/license?drmType=clearkey', { method: 'GET' }),
    );
    expect(response.status).toBe(400);
    expect(((await response.json()) as { code: string }).code).toBe('NO_CERTIFICATE');
  });
});

describe('the renewal interval of the token’s policy (issue #37)', () => {
  const PLAYER = 'https://player.example';
  const renewing = {
    policy_version: 2 as const,
    playback_policy: { persistent: false, renewal_duration: 30, max_stream_per_user: 2 },
  };

  it('is answered to the player as x-renewal-interval, exposed to a listed origin', async () => {
    const proxy = proxyFor(service, {
      cors: { origins: [PLAYER] },
      authorize: () => ({ allow: true, userId: 'user-1', policy: renewing }),
    });
    const response = await proxy(
      license('?drmType=widevine&cid=movie-1', { headers: { origin: PLAYER } }),
    );
    expect(response.status).toBe(200);
    expect(response.headers.get('x-renewal-interval')).toBe('30');
    expect(response.headers.get('access-control-expose-headers')).toBe('x-renewal-interval');
    expect(tokenOf(service.arrivals[0])).toMatchObject({
      policy: { playback_policy: { renewal_duration: 30 } },
    });
  });

  it('is answered with a ClearKey license too, and not exposed with no origin to expose it to', async () => {
    service.answer = { status: 200, contentType: 'application/json', body: '{"keys":[]}' };
    const proxy = proxyFor(service, {
      authorize: () => ({ allow: true, userId: 'user-1', policy: renewing }),
    });
    const response = await proxy(license('?drmType=clearkey&cid=movie-1'));
    expect(response.headers.get('x-renewal-interval')).toBe('30');
    expect(response.headers.get('access-control-expose-headers')).toBeNull();
  });

  it('is not answered when the policy sets none', async () => {
    for (const policy of [undefined, { policy_version: 2 as const }]) {
      const proxy = proxyFor(service, {
        cors: { origins: [PLAYER] },
        authorize: () => ({ allow: true, userId: 'user-1', ...(policy && { policy }) }),
      });
      const response = await proxy(
        license('?drmType=widevine&cid=movie-1', { headers: { origin: PLAYER } }),
      );
      expect(response.status).toBe(200);
      expect(response.headers.get('x-renewal-interval')).toBeNull();
      expect(response.headers.get('access-control-expose-headers')).toBeNull();
    }
  });
});
