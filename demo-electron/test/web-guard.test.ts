import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { playRequest } from './support/play-request.ts';
import { pageHeaders, startTestStack } from './support/stack.ts';
import { rawRequest } from './support/raw-http.ts';

// The web mode's loopback server hands tokens signed with the site's keys (possibly a real
// service's) to the demo's own page only: its Host, its Origin, and the session cookie it got
// by opening the address with this run's launch key (src/main/stack/app-guard.ts).

let web: Awaited<ReturnType<typeof startTestStack>>;
let asPage: Record<string, string>;
let host: string;
const BODY = JSON.stringify({ cid: 'free-sample', drm_type: 'Widevine' });

beforeAll(async () => {
  web = await startTestStack('web');
  asPage = await pageHeaders(web.stack);
  host = new URL(web.stack.url).host;
  // A signed-in user, as the page's Play sets it.
  const plan = await web.stack.api.preparePlay(playRequest());
  expect(plan.ok).toBe(true);
  // Real keys configured: what a stranger must not get signed.
  await web.stack.api.setRealService({
    enabled: true,
    licenseUrl: 'https://license.example/ri',
    siteId: 'REAL',
    header: 'x-real-header',
    siteKey: 'R'.repeat(32),
    accessKey: 'real-access-key',
  });
});
afterAll(() => web?.close());

const token = (headers: Record<string, string>) =>
  rawRequest(`${web.stack.url}/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: BODY,
  });

describe('the token endpoint of pnpm demo:web', () => {
  test("signs for the demo's own page: its Host, Origin and session cookie", async () => {
    const answer = await token({ host, ...asPage });
    expect(answer.status).toBe(200);
    expect(answer.body.length).toBeGreaterThan(50);
  });

  test('gives a rebinding-style Host nothing (421), even with the cookie and Origin', async () => {
    for (const rebound of [
      'rebind.attacker.example',
      `rebind.attacker.example:${new URL(web.stack.url).port}`,
      `localhost:${new URL(web.stack.url).port}`,
    ]) {
      const answer = await token({ ...asPage, host: rebound, origin: `http://${rebound}` });
      expect(answer.status, rebound).toBe(421);
      expect(answer.body).toBe(
        'MISDIRECTED_HOST: This server answers only at the address the demo printed.\n',
      );
    }
    // Nor the page, nor its gateways, under that name.
    const page = await rawRequest(`${web.stack.url}/`, {
      headers: { host: 'rebind.attacker.example' },
    });
    expect(page.status).toBe(421);
  });

  test('the content server and the emulator give a rebinding-style Host nothing either', async () => {
    const rebound = (url: string) => `rebind.attacker.example:${new URL(url).port}`;
    const media = await rawRequest(`${web.stack.contentUrl}/`, {
      headers: { host: rebound(web.stack.contentUrl) },
    });
    expect([media.status, media.body]).toEqual([
      421,
      'MISDIRECTED_HOST: This server answers only at the address the demo printed.\n',
    ]);
    const events = await rawRequest(`${web.stack.emulatorUrl}/events`, {
      headers: { host: rebound(web.stack.emulatorUrl) },
    });
    expect(events.status).toBe(403);
    expect(events.body).toContain('"error_code":"HOST_NOT_ALLOWED"');
    const health = await rawRequest(`${web.stack.emulatorUrl}/health`, {
      headers: { host: new URL(web.stack.emulatorUrl).host },
    });
    expect(health.status).toBe(200);
  });

  test('gives a foreign Origin nothing (403 FORBIDDEN_ORIGIN)', async () => {
    for (const origin of [
      'http://evil.example',
      'null',
      `http://localhost:${host.split(':')[1]}`,
    ]) {
      const answer = await token({ host, ...asPage, origin });
      expect(answer.status, origin).toBe(403);
      expect(answer.body).toMatch(/^FORBIDDEN_ORIGIN: /);
    }
    const none = await token({ host, cookie: asPage['cookie'] ?? '' });
    expect(none.status).toBe(403);
  });

  test('gives a caller without the session cookie nothing: not the token, the page or the API', async () => {
    const origin = web.stack.url;
    for (const cookie of [undefined, 'multidrm_demo_session=guess', 'other=1']) {
      const headers = { host, origin, ...(cookie === undefined ? {} : { cookie }) };
      const answer = await token(headers);
      expect(answer.status).toBe(403);
      expect(answer.body).toMatch(/^LAUNCH_KEY_REQUIRED: Open the demo at the full address/);
      expect((await rawRequest(`${web.stack.url}/`, { headers })).status).toBe(403);
      const api = await rawRequest(`${web.stack.url}/api/get-setup`, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json' },
        body: '[]',
      });
      expect(api.status).toBe(403);
    }
  });

  test('trades the launch key once per request for an HttpOnly, SameSite=Strict cookie, and refuses a wrong one', async () => {
    const launch = await rawRequest(web.stack.openUrl, { headers: { host } });
    expect(launch.status).toBe(303);
    expect(launch.headers['location']).toBe('/');
    expect(String(launch.headers['set-cookie'])).toMatch(
      /^multidrm_demo_session=[\w-]{32}; Path=\/; HttpOnly; SameSite=Strict$/,
    );
    const wrong = await rawRequest(`${web.stack.url}/?launch=${'A'.repeat(32)}`, {
      headers: { host },
    });
    expect(wrong.status).toBe(403);
    expect(wrong.body).toBe('BAD_LAUNCH_KEY: The launch key is not this run of the demo.\n');
    expect(wrong.headers['set-cookie']).toBeUndefined();
  });

  test('the launch key differs at each start', async () => {
    const other = await startTestStack('web');
    try {
      expect(other.stack.openUrl.split('launch=')[1]).not.toBe(
        web.stack.openUrl.split('launch=')[1],
      );
      const cross = await rawRequest(`${other.stack.url}/token`, {
        method: 'POST',
        headers: {
          host: new URL(other.stack.url).host,
          origin: other.stack.url,
          cookie: asPage['cookie'] ?? '',
        },
        body: BODY,
      });
      expect(cross.status).toBe(403);
    } finally {
      await other.close();
    }
  });
});

describe('the content server of pnpm demo:web', () => {
  test('serves media only: keys.json and every other non-media file are 404', async () => {
    for (const path of [
      '/keys.json',
      '/KEYS.JSON',
      '/%6beys.json',
      '/./keys.json',
      '/clear/../keys.json',
    ]) {
      const answer = await rawRequest(`${web.stack.contentUrl}${path}`, {
        headers: { origin: web.stack.url },
      });
      expect(answer.status, path).toBe(404);
      expect(answer.body).not.toMatch(/[0-9a-f]{32}/);
    }
    for (const path of ['/manifest.mpd', '/master.m3u8', '/video/init.mp4', '/video/1.m4s']) {
      expect((await rawRequest(`${web.stack.contentUrl}${path}`)).status, path).toBe(200);
    }
  });

  test("lets only the app's page read its answers (CORS), and the page's CSP names only the servers", async () => {
    const answer = await rawRequest(`${web.stack.contentUrl}/manifest.mpd`, {
      headers: { origin: 'http://evil.example' },
    });
    expect(answer.headers['access-control-allow-origin']).toBe(web.stack.url);
    const connect = web.stack
      .csp()
      .split('; ')
      .find((d) => d.startsWith('connect-src'));
    expect(connect).not.toContain('keys');
  });
});
