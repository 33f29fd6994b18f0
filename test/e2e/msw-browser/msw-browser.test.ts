import { copyFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { e2eSkipped, findChromium, launchChromium, SKIP_NOTICE } from '../support/chromium.ts';
import { buildTestPage } from '../support/page-build.ts';
import { expectClearSourceFrame, shownFrame } from '../support/frame-check.ts';
import { SAMPLE, SITE } from '../support/site.ts';
import { startStaticServer, type StaticServer } from '../support/static-server.ts';
import type { KitPage, KitSetup, KitStatus } from './page/kit-api.ts';

// A site's own browser test, as the kit is meant for: the page runs msw/browser with
// @multidrm/emulator/msw, so a service worker answers the license requests (and the site's token
// and custom-data endpoints) with the emulator's real checks, in the page, with no server at all
// behind license-service.test or site.test. Only the page and the sample content are served.

const PAGE_DIR = fileURLToPath(new URL('./page/', import.meta.url));
const CONTENT_DIR = fileURLToPath(new URL('../../fixtures/content/', import.meta.url));
type KitWindow = { kit: KitPage; document: { title: string } };

/** Builds the page with vite and puts msw's service worker script beside it. */
async function buildPage(): Promise<{ dir: string; remove(): Promise<void> }> {
  const page = await buildTestPage(PAGE_DIR);
  try {
    await copyFile(
      fileURLToPath(import.meta.resolve('msw/mockServiceWorker.js')),
      join(page.dir, 'mockServiceWorker.js'),
    );
  } catch (error) {
    await page.remove();
    throw error;
  }
  return page;
}

const skip = e2eSkipped();
if (skip) console.warn(SKIP_NOTICE);

describe.skipIf(skip)('the msw kit in a real browser (msw/browser, a service worker)', () => {
  let page: Page;
  let statics: StaticServer;
  const closers: Array<() => Promise<void>> = [];
  const pageErrors: string[] = [];

  beforeAll(async () => {
    findChromium();
    const built = await buildPage();
    closers.push(built.remove);
    statics = await startStaticServer({ '/content/': CONTENT_DIR, '/': built.dir });
    closers.push(statics.close);
    const browser = await launchChromium();
    closers.push(browser.close);
    page = browser.context.pages()[0] ?? (await browser.context.newPage());
    page.setDefaultTimeout(20_000);
    page.on('pageerror', (error) => pageErrors.push(`${error.name}: ${error.message}`));
  });
  afterAll(async () => {
    await Promise.allSettled(closers.reverse().map((close) => close()));
  });
  beforeEach(async () => {
    pageErrors.length = 0;
    await page.goto(`${statics.origin}/`);
    await page.waitForFunction(
      () => (globalThis as unknown as KitWindow).document.title === 'ready',
    );
  });

  const setup = (extra: Partial<KitSetup> = {}): KitSetup => ({
    config: {
      sites: [{ ...SITE, gatewayUrl: 'https://site.test/drm/gateway' }],
      keys: { [SAMPLE.cid]: { kid: SAMPLE.kid, key: SAMPLE.key } },
    },
    site: SITE,
    manifestUrl: `${statics.origin}/content/manifest.mpd`,
    contentId: SAMPLE.cid,
    mode: 'token',
    ...extra,
  });
  const start = (s: KitSetup) =>
    page.evaluate((x) => (globalThis as unknown as KitWindow).kit.start(x), s);
  const status = () => page.evaluate(() => (globalThis as unknown as KitWindow).kit.status());
  async function waitFor(what: string, done: (s: KitStatus) => boolean): Promise<KitStatus> {
    const deadline = Date.now() + 20_000;
    for (;;) {
      const now = await status();
      if (done(now)) return now;
      if (Date.now() > deadline) {
        throw new Error(`${what} did not happen within 20 s; last status ${JSON.stringify(now)}`);
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  test('the service worker answers the license request with a real license: the sample plays decrypted', async () => {
    await start(setup());
    const played = await waitFor(
      'playback past 2 s',
      (s) => s.currentTime > 2 || s.errors.length > 0,
    );
    expect(played.errors).toEqual([]);
    expect(played.controlled).toBe(true);
    expect(played.credentialsAsked).toBe(1);
    expect(played.flow.map((e) => e.type)).toEqual([
      'license-request',
      'token-checked',
      'license-issued',
    ]);

    const frame = await shownFrame(
      () => page.evaluate(() => (globalThis as unknown as KitWindow).kit.showFrame(2)),
      page.locator('#video'),
    );
    expectClearSourceFrame(frame, 'msw-browser');
    expect(pageErrors).toEqual([]);
  });

  test("gateway mode: the service calls the site's gateway back through the worker too, and it plays", async () => {
    await start(setup({ mode: 'gateway' }));
    const played = await waitFor(
      'playback past 1 s',
      (s) => s.currentTime > 1 || s.errors.length > 0,
    );
    expect(played.errors).toEqual([]);
    expect(played.flow.map((e) => e.type)).toEqual([
      'license-request',
      'callback-sent',
      'callback-answered',
      'license-issued',
    ]);
  });

  test("with the fault gateway-refusal, the app gets 8002 with the site's own code and no picture", async () => {
    await start(
      setup({
        mode: 'gateway',
        faults: [{ fault: 'gateway-refusal', siteCode: '4031', message: 'No subscription' }],
      }),
    );
    const failed = await waitFor('an error', (s) => s.errors.length > 0);
    expect(failed.errors[0]).toMatchObject({
      name: 'LicenseServiceError',
      errorCode: '8002',
      siteErrorCode: '4031',
    });
    expect(failed.flow).toEqual([
      { type: 'license-request' },
      { type: 'fault-injected', fault: 'gateway-refusal' },
      { type: 'license-denied', errorCode: '8002' },
    ]);
    expect(failed.currentTime).toBe(0);
    expect(pageErrors).toEqual([]);
  });

  test('with the fault token-expired once, the player fetches one fresh token and plays', async () => {
    await start(setup({ faults: [{ fault: 'token-expired', times: 1 }] }));
    const played = await waitFor(
      'playback past 1 s',
      (s) => s.currentTime > 1 || s.errors.length > 0,
    );
    expect(played.errors).toEqual([]);
    expect(played.credentialsAsked).toBe(2);
    expect(played.flow.filter((e) => e.type.startsWith('license-'))).toEqual([
      { type: 'license-request' },
      { type: 'license-denied', errorCode: '7011' },
      { type: 'license-request' },
      { type: 'license-issued' },
    ]);
  });
});
