import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  createTokenHandler,
  toNodeListener,
  verifyLicenseToken,
  type SiteEndpointEvent,
} from '@multidrm/site-kit';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  e2eSkipped,
  launchChromium,
  SKIP_NOTICE,
  type LaunchedChromium,
} from './support/chromium.ts';

// Cross-site request forgery on the site's token endpoint, in a real browser: a page of another site
// makes the signed-in user's browser POST to the endpoint with the user's cookie. A `text/plain` fetch
// or form POST needs no CORS preflight, so the request arrives; the endpoint must refuse it before
// `authorize` runs (issuing a token has effects even when the attacker cannot read it: logs, stream
// counts, rate limits). The site's own page, sending application/json, still gets its token.
// Everything runs on 127.0.0.1; the attacker's page is on `localhost`, which is another site.

const SITE = {
  siteId: 'CSRF',
  siteKey: 'Cs7Rf2Qz9Lm4Tc8YwNb3JdF6hGs1aEuK',
  accessKey: 'csrf-test-access-key',
};
const BODY = JSON.stringify({ cid: 'movie-1', drm_type: 'Widevine' });

const skip = e2eSkipped();
if (skip) console.warn(SKIP_NOTICE);

interface Listening {
  server: Server;
  port: number;
}

async function listen(server: Server): Promise<Listening> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port };
}

async function close({ server }: Listening): Promise<void> {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
}

const html = (body: string) => `<!doctype html><meta charset="utf-8"><body>${body}</body>`;

describe.skipIf(skip)('CSRF on the token endpoint, in Chromium', () => {
  const events: SiteEndpointEvent[] = [];
  const authorized: { cookie: string | null; origin: string | null }[] = [];
  let site: Listening;
  let attacker: Listening;
  let browser: LaunchedChromium;
  let page: Page;
  let siteOrigin: string;

  beforeAll(async () => {
    const token = toNodeListener(
      createTokenHandler({
        ...SITE,
        authorize: (request) => {
          authorized.push({
            cookie: request.headers.get('cookie'),
            origin: request.headers.get('origin'),
          });
          return { allow: true, userId: 'signed-in-user' };
        },
        onEvent: (event) => events.push(event),
      }),
    );
    // The site: its own page (which signs the user in with a cookie), and the token endpoint.
    site = await listen(
      createServer((req, res) => {
        if (req.url === '/token') return void token(req, res);
        res
          .writeHead(200, {
            'content-type': 'text/html; charset=utf-8',
            'set-cookie': 'session=user-1; Path=/; SameSite=None; Secure',
          })
          .end(html('<p>site</p>'));
      }),
    );
    siteOrigin = `http://127.0.0.1:${site.port}`;
    // The attacker's site: a page that posts to the token endpoint in every way that needs no preflight.
    attacker = await listen(
      createServer((_req, res) => {
        const target = `${siteOrigin}/token`;
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(
          html(`
            <iframe name="sink"></iframe>
            <form id="form" method="POST" action="${target}" enctype="text/plain" target="sink">
              <input name='{"cid":"movie-1","drm_type":"Widevine","x":"' value='"}'>
            </form>`),
        );
      }),
    );
    browser = await launchChromium();
    page = await browser.context.newPage();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    if (site) await close(site);
    if (attacker) await close(attacker);
  });

  /** Waits (bounded) until the endpoint has reported `count` events in all. */
  async function eventsReach(count: number): Promise<void> {
    const deadline = Date.now() + 10_000;
    while (events.length < count && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  test("a foreign page's text/plain fetch and form POST reach the endpoint and are refused before authorize", async () => {
    await page.goto(`${siteOrigin}/`, { timeout: 10_000 });
    await page.goto(`http://localhost:${attacker.port}/`, { timeout: 10_000 });
    const before = events.length;

    // 1. fetch, no-cors, text/plain, with the user's cookies: a simple request, sent without preflight.
    await page.evaluate(
      async ([url, body]) => {
        await fetch(url as string, {
          method: 'POST',
          mode: 'no-cors',
          credentials: 'include',
          headers: { 'content-type': 'text/plain' },
          body,
        }).catch(() => undefined);
      },
      [`${siteOrigin}/token`, BODY],
    );
    await eventsReach(before + 1);
    // 2. A form with enctype text/plain, whose body is JSON the endpoint would otherwise read.
    await page
      .locator('#form')
      .evaluate((form) => (form as unknown as { submit(): void }).submit());
    await eventsReach(before + 2);
    // 3. application/json from another origin: the browser asks first (OPTIONS), CORS is off, so the
    // POST is never sent.
    const readable = await page.evaluate(
      async ([url, body]) =>
        fetch(url as string, {
          method: 'POST',
          credentials: 'include',
          headers: { 'content-type': 'application/json' },
          body,
        }).then(
          () => 'read',
          () => 'blocked',
        ),
      [`${siteOrigin}/token`, BODY],
    );

    expect(readable).toBe('blocked');
    expect(events.slice(before)).toEqual([
      { type: 'rejected', status: 415, reason: expect.stringContaining('"text/plain"') },
      { type: 'rejected', status: 415, reason: expect.stringContaining('"text/plain"') },
    ]);
    expect(authorized).toEqual([]);
  });

  test("the site's own page, sending what a player sends, gets its token", async () => {
    await page.goto(`${siteOrigin}/`, { timeout: 10_000 });
    const answer = await page.evaluate(
      async ([url, body]) => {
        const response = await fetch(url as string, {
          method: 'POST',
          credentials: 'include',
          headers: { 'content-type': 'application/json' },
          body,
        });
        return { status: response.status, text: await response.text() };
      },
      ['/token', BODY],
    );
    expect(answer.status).toBe(200);
    expect(verifyLicenseToken(answer.text, SITE)).toMatchObject({ userId: 'signed-in-user' });
    expect(authorized).toHaveLength(1);
  });
});
