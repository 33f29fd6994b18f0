import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { PlayPlan, PlayRequest, PolicyInput, Result } from '../src/shared/contract.ts';
import type { ProxyLogPage } from '../src/shared/proxy-events.ts';
import { FAULT_MENU } from '../src/shared/faults.ts';
import { CONTENT_DIR, pageHeaders, startTestStack } from './support/stack.ts';

// The stack that both `pnpm demo` (Electron main) and `pnpm demo:web` start, driven under Node.

let web: Awaited<ReturnType<typeof startTestStack>>;
let keys: { cid: string; kid: string; key: string };
/** The page's Origin and session cookie. */
let asPage: Record<string, string>;

beforeAll(async () => {
  web = await startTestStack('web');
  asPage = await pageHeaders(web.stack);
  keys = JSON.parse(await readFile(join(CONTENT_DIR, 'keys.json'), 'utf8'));
});
afterAll(() => web?.close());

const POLICY: PolicyInput = {
  limit: true,
  timeRule: 'duration',
  durationSeconds: 600,
  persistent: false,
  hdcp: null,
  securityLevel: null,
  externalKey: false,
};

const request = (over: Partial<PlayRequest> = {}): PlayRequest => ({
  mode: 'token',
  player: 'shaka',
  userId: 'member-alice',
  cid: keys.cid,
  policy: POLICY,
  ...over,
});

function value<T>(result: Result<T>): T {
  if (!result.ok) throw new Error(`${result.error.code}: ${result.error.message}`);
  return result.value;
}

/** The ClearKey license request of the sample's key, as the CDM makes it. */
const clearKeyRequest = () =>
  JSON.stringify({ kids: [Buffer.from(keys.kid, 'hex').toString('base64url')], type: 'temporary' });

/** Proxy mode: the license request to the site's proxy, with the page's cookie and no token. */
const viaProxy = (plan: PlayPlan, headers: Record<string, string> = asPage) =>
  fetch(`${plan.licenseProxyUrl}?drmType=widevine&cid=${encodeURIComponent(plan.cid)}`, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/octet-stream' },
    body: clearKeyRequest(),
  });

/**
 * What the player does with a plan: get the token or custom data, then ask for the license (proxy
 * mode: ask the site's proxy, which does both).
 */
async function playFlow(plan: PlayPlan): Promise<Response> {
  if (plan.licenseProxyUrl !== undefined) return viaProxy(plan);
  const site = await fetch((plan.tokenUrl ?? plan.customDataUrl) as string, {
    method: 'POST',
    headers: { ...asPage, 'content-type': 'application/json' },
    body: JSON.stringify({ cid: plan.cid, drm_type: 'Widevine' }),
  });
  if (site.status !== 200) return site;
  return fetch(plan.licenseUrl, {
    method: 'POST',
    headers: { [plan.header]: await site.text(), 'content-type': 'application/json' },
    body: clearKeyRequest(),
  });
}

const hexOf = (b64url: string) => Buffer.from(b64url, 'base64url').toString('hex');

describe('startDemoStack', () => {
  test('runs the page and site, the emulator and the content on three loopback ports', () => {
    const urls = [web.stack.url, web.stack.emulatorUrl, web.stack.contentUrl];
    for (const url of urls) expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(new Set(urls.map((u) => new URL(u).port)).size).toBe(3);
  });

  test('serves the page with a strict Content-Security-Policy', async () => {
    const response = await fetch(`${web.stack.url}/`, { headers: asPage });
    expect(response.status).toBe(200);
    const csp = response.headers.get('content-security-policy') ?? '';
    expect(csp).toBe(web.stack.csp());
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toMatch(/unsafe-inline|unsafe-eval|\*/);
    // Network access to the app, the emulator and the content, and data: URLs (the hls.js and
    // dash.js adapters hand each license to their player as one); nothing else.
    const connect = csp.split('; ').find((directive) => directive.startsWith('connect-src'));
    expect(connect).toBe(
      `connect-src 'self' ${web.stack.emulatorUrl} ${web.stack.contentUrl} data:`,
    );
    expect(csp).toContain("frame-ancestors 'none'");
    // Workers only from blob: URLs, as video.js's VHS makes them; scripts stay 'self'.
    expect(csp).toContain('; worker-src blob:;');
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
  });

  test.each([
    ['token', 'token-checked'],
    ['gateway-json', 'callback-answered'],
    ['gateway-xml', 'callback-answered'],
    ['proxy', 'token-checked'],
  ] as const)('%s mode: the site and the emulator issue the content key', async (mode, step) => {
    const seen: string[] = [];
    const off = web.stack.events.on((event) => seen.push(event.type));
    const plan = value(await web.stack.api.preparePlay(request({ mode })));
    const response = await playFlow(plan);
    off();
    expect(response.status).toBe(200);
    const license = (await response.json()) as { keys: { kid: string; k: string }[] };
    expect(license.keys.map((k) => [hexOf(k.kid), hexOf(k.k)])).toEqual([[keys.kid, keys.key]]);
    expect(seen).toContain(step);
    expect(seen.at(-1)).toBe('license-issued');
    expect(plan.siteId).toBe(mode === 'gateway-xml' ? 'DEMOXML' : 'DEMO');
  });

  // Each manifest as its player reads ClearKey: the common PSSH, the HLS playlists (whose media
  // playlists carry KEYFORMAT="org.w3.clearkey"), the DASH-IF ClearKey system.
  const COMMON_SYSTEM = 'urn:uuid:1077efec-c0b2-4d02-ace3-3c1e52e2fb4b';
  test.each([
    ['shaka', 'manifest.mpd', 'application/dash+xml', COMMON_SYSTEM],
    ['hls', 'master.m3u8', 'application/x-mpegURL', '#EXT-X-STREAM-INF'],
    ['dash', 'manifest-clearkey.mpd', 'application/dash+xml', 'urn:uuid:e2719d58-a985-b3c9'],
    ['videojs', 'manifest.mpd', 'application/dash+xml', COMMON_SYSTEM],
  ] as const)(
    'the %s player is given %s, which the content server serves',
    async (player, file, type, signal) => {
      const plan = value(await web.stack.api.preparePlay(request({ player })));
      expect(plan).toMatchObject({
        player,
        manifestUrl: `${web.stack.contentUrl}/${file}`,
        manifestType: type,
      });
      const manifest = await fetch(plan.manifestUrl, { headers: { origin: web.stack.url } });
      expect(manifest.status).toBe(200);
      expect(manifest.headers.get('access-control-allow-origin')).toBe(web.stack.url);
      expect(await manifest.text()).toContain(signal);
    },
  );

  test("the gateway refuses a guest for a members-only title: 8002 with the site's code, as the service answers", async () => {
    const plan = value(
      await web.stack.api.preparePlay(request({ mode: 'gateway-json', userId: 'guest-bob' })),
    );
    const response = await playFlow(plan);
    expect(response.status).toBe(200);
    const body = (await response.json()) as { errorCode: string; message: string; reason: string };
    expect(body).toMatchObject({ errorCode: '8002', reason: 'GATEWAY_DENIED' });
    expect(JSON.parse(body.message)).toMatchObject({ ERROR: '4031' });
  });

  test('the token endpoint refuses a guest for a members-only title with 403', async () => {
    const plan = value(await web.stack.api.preparePlay(request({ userId: 'guest-bob' })));
    const response = await playFlow(plan);
    expect(response.status).toBe(403);
    expect(await response.text()).toContain('guest-bob is not entitled');
  });

  test('a guest plays a free title', async () => {
    const plan = value(
      await web.stack.api.preparePlay(request({ userId: 'guest-bob', cid: 'free-sample' })),
    );
    expect((await playFlow(plan)).status).toBe(200);
  });

  test('the site-keyed title plays only with the external key', async () => {
    const without = value(await web.stack.api.preparePlay(request({ cid: 'byok-sample' })));
    const refused = await playFlow(without);
    expect(await refused.json()).toMatchObject({ errorCode: '7001', reason: 'NO_KEY_FOR_CID' });
    const withKey = value(
      await web.stack.api.preparePlay(
        request({ cid: 'byok-sample', policy: { ...POLICY, externalKey: true } }),
      ),
    );
    expect((await playFlow(withKey)).status).toBe(200);
  });

  test('the screens: tokens carry the stream limit and x-renewal-interval, the third stream gets 6003', async () => {
    const streams = { maxPerUser: 2, renewalSeconds: 10 };
    const plan = value(
      await web.stack.api.preparePlay(
        request({ userId: 'member-screens', cid: 'free-sample', streams }),
      ),
    );
    /** One screen's license: a fresh token, then the request with the screen's stream ID. */
    const screen = async (streamId: string) => {
      const site = await fetch(plan.tokenUrl as string, {
        method: 'POST',
        headers: { ...asPage, 'content-type': 'application/json' },
        body: JSON.stringify({ cid: plan.cid, drm_type: 'Widevine' }),
      });
      expect(site.status).toBe(200);
      expect(site.headers.get('x-renewal-interval')).toBe('10');
      const license = await fetch(plan.licenseUrl, {
        method: 'POST',
        headers: { [plan.header]: await site.text(), 'x-drm-stream-id': streamId },
        body: clearKeyRequest(),
      });
      return (await license.json()) as { keys?: unknown[]; errorCode?: string };
    };
    expect((await screen('screen-1')).keys).toHaveLength(1);
    expect((await screen('screen-2')).keys).toHaveLength(1);
    expect(await screen('screen-3')).toMatchObject({ errorCode: '6003' });
    // A renewal of a counted screen is never refused for the count.
    expect((await screen('screen-1')).keys).toHaveLength(1);
    // Without the screens control the token carries no limit and the answer no interval.
    value(
      await web.stack.api.preparePlay(request({ userId: 'member-screens', cid: 'free-sample' })),
    );
    const plain = await fetch(plan.tokenUrl as string, {
      method: 'POST',
      headers: { ...asPage, 'content-type': 'application/json' },
      body: JSON.stringify({ cid: plan.cid, drm_type: 'Widevine' }),
    });
    expect(plain.headers.get('x-renewal-interval')).toBeNull();
  });

  test('the screens need a token: the gateway modes refuse a stream limit with a fix', async () => {
    const result = await web.stack.api.preparePlay(
      request({ mode: 'gateway-json', streams: { maxPerUser: 2, renewalSeconds: 10 } }),
    );
    expect(result).toMatchObject({ ok: false, error: { code: 'SCREENS_NEED_A_TOKEN' } });
  });

  test('a policy against the spec is refused with INVALID_POLICY and a fix', async () => {
    const result = await web.stack.api.preparePlay(
      request({ policy: { ...POLICY, limit: false } }),
    );
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error.code).toBe('INVALID_POLICY');
    expect(result.error.message).toContain('policy.playback_policy.duration');
    expect(result.error.fix).toContain('limit');
  });

  test('the XML gateway mode refuses what its answer cannot carry', async () => {
    const result = await web.stack.api.preparePlay(
      request({ mode: 'gateway-xml', policy: { ...POLICY, persistent: true } }),
    );
    expect(result.ok ? 'ok' : result.error.message).toContain('cannot carry persistent');
  });

  test('no answer to the renderer carries a site key, access key or content key', async () => {
    const secretKey = 'S'.repeat(32);
    const accessKey = 'access-key-that-must-stay-in-main';
    const answers = [
      await web.stack.api.setRealService({
        enabled: false,
        licenseUrl: 'https://license.example/ri',
        siteId: 'REAL',
        header: 'x-drm-custom-data',
        siteKey: secretKey,
        accessKey,
      }),
      await web.stack.api.getSetup(),
      await web.stack.api.preparePlay(request({ policy: { ...POLICY, externalKey: true } })),
      await web.stack.api.preparePlay(request({ mode: 'gateway-xml' })),
    ];
    const text = JSON.stringify(answers);
    for (const secret of [secretKey, accessKey, keys.key]) expect(text).not.toContain(secret);
    const view = answers[0];
    expect(view?.ok && view.value).toMatchObject({ siteKeySet: true, accessKeySet: true });
  });

  test("the real service, once on, is the plan's license server and the CSP allows it", async () => {
    const real = {
      licenseUrl: 'https://license.example/ri',
      siteId: 'REAL',
      header: 'x-real-header',
    };
    value(await web.stack.api.setRealService({ ...real, enabled: true }));
    try {
      const plan = value(await web.stack.api.preparePlay(request()));
      expect(plan).toMatchObject({
        target: 'real service',
        licenseUrl: real.licenseUrl,
        siteId: 'REAL',
        header: 'x-real-header',
      });
      expect(web.stack.csp()).toContain('https://license.example');
      const gateway = await web.stack.api.preparePlay(request({ mode: 'gateway-json' }));
      expect(gateway.ok ? '' : gateway.error.code).toBe('REAL_SERVICE_TOKEN_ONLY');
      const proxy = await web.stack.api.preparePlay(request({ mode: 'proxy' }));
      expect(proxy.ok ? '' : proxy.error).toMatchObject({
        code: 'REAL_SERVICE_TOKEN_ONLY',
        message: "The demo's license proxy forwards to the local emulator only.",
      });
    } finally {
      value(
        await web.stack.api.setRealService({
          ...real,
          header: 'x-drm-custom-data',
          enabled: false,
        }),
      );
    }
  });
});

describe("proxy mode: the site's license proxy", () => {
  /** The proxy's log as the page reads it, after entry `after`. */
  const proxyLog = async (after = 0) => {
    const response = await fetch(`${web.stack.url}/proxy-events?after=${after}`, {
      headers: asPage,
    });
    expect(response.status).toBe(200);
    return ((await response.json()) as ProxyLogPage).entries;
  };
  const lastSeq = async () => (await proxyLog()).at(-1)?.seq ?? 0;

  test('the plan names the proxy only: no token endpoint, no custom data', async () => {
    const plan = value(await web.stack.api.preparePlay(request({ mode: 'proxy' })));
    expect(plan).toMatchObject({
      mode: 'proxy',
      licenseProxyUrl: `${web.stack.url}/license-proxy`,
      licenseUrl: `${web.stack.emulatorUrl}/ri/licenseManager.do`,
      siteId: 'DEMO',
      target: 'emulator',
    });
    expect(plan.tokenUrl).toBeUndefined();
    expect(plan.customDataUrl).toBeUndefined();
  });

  test("a license goes player → site's proxy (its decision, its token) → emulator → back, each step logged", async () => {
    const from = await lastSeq();
    const seen: { type: string; userId?: string; version?: number }[] = [];
    const off = web.stack.events.on((event) => seen.push(event));
    const plan = value(await web.stack.api.preparePlay(request({ mode: 'proxy' })));
    const response = await viaProxy(plan);
    off();
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('no-store');
    const license = (await response.json()) as { keys: { kid: string; k: string }[] };
    expect(license.keys.map((k) => [hexOf(k.kid), hexOf(k.k)])).toEqual([[keys.kid, keys.key]]);
    // The emulator checked a v2 token the proxy made for the session's user.
    expect(seen.find((e) => e.type === 'token-checked')).toMatchObject({
      userId: 'member-alice',
      version: 2,
    });
    const entries = await proxyLog(from);
    expect(entries.map((entry) => entry.event)).toEqual([
      { type: 'request', kind: 'license', drmType: 'Widevine', cid: keys.cid },
      {
        type: 'decision',
        drmType: 'Widevine',
        cid: keys.cid,
        allow: true,
        status: 200,
        userId: 'member-alice',
      },
      {
        type: 'upstream',
        kind: 'license',
        drmType: 'Widevine',
        status: 200,
        ms: expect.any(Number),
      },
    ]);
    const [first, , last] = entries;
    expect(last?.seq).toBe((first?.seq ?? 0) + 2);
    expect(last?.at).toBeGreaterThanOrEqual(first?.at ?? Infinity);
  });

  test("a guest is refused by the site's own decision: SITE_REFUSED 403, and the service is never asked", async () => {
    const from = await lastSeq();
    const seen: string[] = [];
    const off = web.stack.events.on((event) => seen.push(event.type));
    const plan = value(
      await web.stack.api.preparePlay(request({ mode: 'proxy', userId: 'guest-bob' })),
    );
    const response = await viaProxy(plan);
    off();
    expect(response.status).toBe(403);
    expect(await response.json()).toEqual({
      code: 'SITE_REFUSED',
      message: `guest-bob is not entitled to ${keys.cid}: only members (member-…) play it.`,
    });
    expect(seen).toEqual([]);
    expect((await proxyLog(from)).map((entry) => entry.event)).toMatchObject([
      { type: 'request' },
      { type: 'decision', allow: false, status: 403 },
      { type: 'rejected', status: 403, code: 'SITE_REFUSED' },
    ]);
  });

  test('no request reaches the proxy without the page: its cookie for any, its Origin for a POST', async () => {
    const plan = value(await web.stack.api.preparePlay(request({ mode: 'proxy' })));
    const from = await lastSeq();
    const noCookie = await viaProxy(plan, { origin: web.stack.url });
    expect(noCookie.status).toBe(403);
    expect(await noCookie.text()).toMatch(/^LAUNCH_KEY_REQUIRED: /);
    const foreign = await viaProxy(plan, { ...asPage, origin: 'http://evil.example' });
    expect(foreign.status).toBe(403);
    expect(await foreign.text()).toMatch(/^FORBIDDEN_ORIGIN: /);
    expect(await proxyLog(from)).toEqual([]);
  });

  test("the proxy's own failures are {code,message} answers, never a 5xx", async () => {
    const ask = (query: string, init: RequestInit = {}) =>
      fetch(`${web.stack.url}/license-proxy${query}`, {
        method: 'POST',
        body: 'x',
        ...init,
        headers: { ...asPage, ...init.headers },
      });
    for (const [query, code, status] of [
      ['', 'UNKNOWN_DRM', 400],
      ['?drmType=flash&cid=a', 'UNKNOWN_DRM', 400],
      ['?drmType=widevine', 'BAD_CID', 400],
      ['?drmType=widevine&cid=a&cid=b', 'BAD_CID', 400],
    ] as const) {
      const response = await ask(query);
      expect(response.status, query).toBe(status);
      expect(((await response.json()) as { code: string }).code, query).toBe(code);
    }
    const empty = await ask(`?drmType=widevine&cid=${keys.cid}`, { body: '' });
    expect(await empty.json()).toMatchObject({ code: 'BAD_BODY' });
    const large = await ask(`?drmType=widevine&cid=${keys.cid}`, { body: 'x'.repeat(70_000) });
    expect(large.status).toBe(413);
  });

  test("the Widevine certificate is passed through from the emulator, without the site's decision", async () => {
    const from = await lastSeq();
    const direct = await fetch(`${web.stack.emulatorUrl}/ri/widevineCert.do?siteId=DEMO`);
    const proxied = await fetch(`${web.stack.url}/license-proxy?drmType=widevine`, {
      headers: asPage,
    });
    expect(proxied.status).toBe(direct.status);
    expect(Buffer.from(await proxied.arrayBuffer())).toEqual(
      Buffer.from(await direct.arrayBuffer()),
    );
    const events = (await proxyLog(from)).map((entry) => entry.event.type);
    expect(events).toEqual(['request', 'upstream']);
  });

  test("the faults menu: token expired once is relayed as the service's 7011, and the next request (a fresh token) plays", async () => {
    const plan = value(
      await web.stack.api.preparePlay(
        request({ mode: 'proxy', fault: FAULT_MENU['token-expired'].fault }),
      ),
    );
    const refused = await viaProxy(plan);
    expect(refused.status).toBe(200);
    expect(await refused.json()).toMatchObject({ errorCode: '7011' });
    const again = await viaProxy(plan);
    expect(await again.json()).toHaveProperty('keys');
  });

  test("the faults menu: wrong hash is the service's 7019, relayed as it came", async () => {
    const plan = value(
      await web.stack.api.preparePlay(
        request({ mode: 'proxy', fault: FAULT_MENU['wrong-hash'].fault }),
      ),
    );
    const from = await lastSeq();
    expect(await (await viaProxy(plan)).json()).toMatchObject({ errorCode: '7019' });
    expect((await proxyLog(from)).at(-1)?.event).toMatchObject({
      type: 'upstream',
      status: 200,
      errorCode: '7019',
    });
    value(await web.stack.api.preparePlay(request({ mode: 'proxy' })));
  });

  test("the faults menu: the service's HTTP 503 is the proxy's own 502 UPSTREAM_ERROR, its page not passed on; the log has the 503", async () => {
    const plan = value(
      await web.stack.api.preparePlay(
        request({ mode: 'proxy', fault: FAULT_MENU['http-error'].fault }),
      ),
    );
    const from = await lastSeq();
    const answer = await viaProxy(plan);
    expect(answer.status).toBe(502);
    const text = await answer.text();
    expect(JSON.parse(text)).toMatchObject({ code: 'UPSTREAM_ERROR' });
    expect(text).not.toContain('injected fault http-error');
    expect((await proxyLog(from)).slice(-2).map((entry) => entry.event)).toMatchObject([
      { type: 'upstream', status: 503 },
      { type: 'error', status: 502, code: 'UPSTREAM_ERROR' },
    ]);
    value(await web.stack.api.preparePlay(request({ mode: 'proxy' })));
  });

  test('the faults menu: a gateway fault changes nothing, as no gateway is called', async () => {
    const plan = value(
      await web.stack.api.preparePlay(
        request({ mode: 'proxy', fault: FAULT_MENU['gateway-refusal'].fault }),
      ),
    );
    expect(await (await viaProxy(plan)).json()).toHaveProperty('keys');
  });

  test('the log keeps no token, and refuses what it does not read', async () => {
    const text = JSON.stringify(await proxyLog());
    expect(text).not.toMatch(/eyJ|"token"|siteKey|access/i);
    const bad = await fetch(`${web.stack.url}/proxy-events?after=-1`, { headers: asPage });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ code: 'BAD_AFTER' });
    const post = await fetch(`${web.stack.url}/proxy-events`, {
      method: 'POST',
      headers: asPage,
      body: '',
    });
    expect(post.status).toBe(405);
  });
});

describe('the HTTP API of the web mode', () => {
  const call = (path: string, body: string, headers: Record<string, string> = {}) =>
    fetch(`${web.stack.url}${path}`, {
      method: 'POST',
      headers: { ...asPage, 'content-type': 'application/json', ...headers },
      body,
    });

  test('answers the page with the same results as the contract', async () => {
    const response = await call('/api/get-setup', '[]');
    expect(await response.json()).toEqual(
      JSON.parse(JSON.stringify(await web.stack.api.getSetup())),
    );
  });

  test('refuses other origins, other content types and bad arguments', async () => {
    const foreign = await call('/api/get-setup', '[]', { origin: 'http://evil.example' });
    expect(foreign.status).toBe(403);
    // The guard in front of the whole app refuses it before the API reads anything.
    expect(await foreign.text()).toMatch(/^FORBIDDEN_ORIGIN: /);
    expect((await call('/api/get-setup', '[]', { 'content-type': 'text/plain' })).status).toBe(415);
    expect((await call('/api/get-setup', '{')).status).toBe(400);
    const bad = await call('/api/prepare-play', JSON.stringify([{ mode: 'x' }]));
    expect(bad.status).toBe(400);
    const body = (await bad.json()) as Result<never>;
    expect(body.ok ? '' : body.error.code).toBe('INVALID_REQUEST');
    expect(body.ok ? '' : body.error.message).toContain('Mode: must be one of');
  });
});

describe('the content server', () => {
  test('serves the manifest to the app origin only, and nothing outside its folder', async () => {
    const manifest = await fetch(`${web.stack.contentUrl}/manifest.mpd`);
    expect(manifest.status).toBe(200);
    expect(manifest.headers.get('access-control-allow-origin')).toBe(web.stack.url);
    expect(await manifest.text()).toContain('<MPD');
    for (const path of ['/../package.json', '/%2e%2e/%2e%2e/package.json', '/nothing.mpd']) {
      expect((await fetch(`${web.stack.contentUrl}${path}`)).status).toBe(404);
    }
  });
});

describe('the Electron shell', () => {
  test('serves the page and site through its own scheme; loopback answers the gateways only', async () => {
    const electron = await startTestStack('electron');
    try {
      expect(electron.stack.url).toBe('multidrm-demo://app');
      expect(electron.stack.openUrl).toBe('multidrm-demo://app/');
      const page = await electron.stack.handle(new Request('multidrm-demo://app/'));
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('<title>multidrm demo</title>');
      const loopback = electron.stack.loopbackUrl;
      for (const path of ['/', '/token', '/custom-data', '/api/get-setup']) {
        const response = await fetch(`${loopback}${path}`, {
          method: 'POST',
          headers: { origin: loopback, 'content-type': 'application/json' },
          body: '[]',
        });
        expect(response.status, path).toBe(404);
      }
      // The gateway is there (it refuses a body that is not the service's callback).
      const gateway = await fetch(`${loopback}/gateway`, { method: 'POST', body: 'x' });
      expect(gateway.status).not.toBe(404);
      // The license proxy is the page's, through the scheme: its Origin passes, another does not.
      expect((await fetch(`${loopback}/license-proxy`, { method: 'POST' })).status).toBe(404);
      value(await electron.stack.api.preparePlay(request({ mode: 'proxy' })));
      const proxied = (origin: string) =>
        electron.stack.handle(
          new Request(`multidrm-demo://app/license-proxy?drmType=widevine&cid=${keys.cid}`, {
            method: 'POST',
            headers: { origin, 'content-type': 'application/octet-stream' },
            body: clearKeyRequest(),
          }),
        );
      const license = await proxied('multidrm-demo://app');
      expect(license.status).toBe(200);
      expect(await license.json()).toHaveProperty('keys');
      expect((await proxied('https://evil.example')).status).toBe(403);
      expect(value(await electron.stack.api.getSetup()).shell).toBe('electron');
    } finally {
      await electron.close();
    }
    await expect(fetch(`${electron.stack.loopbackUrl}/`)).rejects.toThrow();
    await expect(fetch(`${electron.stack.emulatorUrl}/health`)).rejects.toThrow();
  });
});
