import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { PlayPlan, PlayRequest, PolicyInput, Result } from '../src/shared/contract.ts';
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

/** What the player does with a plan: get the token or custom data, then ask for the license. */
async function playFlow(plan: PlayPlan): Promise<Response> {
  const site = await fetch((plan.tokenUrl ?? plan.customDataUrl) as string, {
    method: 'POST',
    headers: { ...asPage, 'content-type': 'application/json' },
    body: JSON.stringify({ cid: plan.cid, drm_type: 'Widevine' }),
  });
  if (site.status !== 200) return site;
  const kid = Buffer.from(keys.kid, 'hex').toString('base64url');
  return fetch(plan.licenseUrl, {
    method: 'POST',
    headers: { [plan.header]: await site.text(), 'content-type': 'application/json' },
    body: JSON.stringify({ kids: [kid], type: 'temporary' }),
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
      expect(value(await electron.stack.api.getSetup()).shell).toBe('electron');
    } finally {
      await electron.close();
    }
    await expect(fetch(`${electron.stack.loopbackUrl}/`)).rejects.toThrow();
    await expect(fetch(`${electron.stack.emulatorUrl}/health`)).rejects.toThrow();
  });
});
