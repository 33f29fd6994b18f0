import { mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  e2eSkipped,
  launchChromium,
  SKIP_NOTICE,
  type LaunchedChromium,
} from '../../test/e2e/support/chromium.ts';
import { frameStats, isBlankFrame } from '../../test/e2e/support/frames.ts';
import { decodePng } from '../../test/e2e/support/png.ts';
import { buildRenderer } from '../scripts/build-renderer.ts';
import { PLAYER_NAMES } from '../src/renderer/players/index.ts';
import { PLAYERS, type PlayerName } from '../src/shared/contract.ts';
import {
  choose,
  timelineSteps,
  VIDEO,
  waitForError,
  waitForPlayback,
  type Page,
} from './support/demo-page.ts';
import { startWebDemo, type RunningWebDemo } from './support/web-script.ts';

// Headless Chromium on the `pnpm demo:web` stack, driven through the page's stable test hooks.

// The README's picture is only rewritten on request, so that running the tests changes no file.
const SCREENSHOT =
  process.env.MULTIDRM_UPDATE_SCREENSHOT === '1'
    ? fileURLToPath(new URL('../docs/screenshot.png', import.meta.url))
    : join(tmpdir(), 'multidrm-demo-screenshot.png');

let demo: RunningWebDemo;
let browser: LaunchedChromium;
let page: Page;
const pageErrors: string[] = [];
/** Every URL the page requested, in order. */
const requested: string[] = [];

const skip = e2eSkipped();
if (skip) console.warn(SKIP_NOTICE);

beforeAll(async () => {
  if (skip) return;
  await buildRenderer();
  demo = await startWebDemo();
  browser = await launchChromium({ viewport: { width: 1320, height: 820 } });
  page = await browser.context.newPage();
  page.on('pageerror', (error) => pageErrors.push(error.message));
  page.on('request', (request) => requested.push(request.url()));
  page.on('console', (message) => {
    // CSP violations are reported on the console: the page must cause none.
    if (message.text().includes('Content Security Policy')) pageErrors.push(message.text());
  });
  await page.goto(demo.openUrl);
});

afterAll(async () => {
  await browser?.close();
  await demo?.stop();
});

const TOKEN_FLOW = [
  'play',
  'token-requested',
  'token-received',
  'license-request-sent',
  'license-request-received',
  'token-checked',
  'license-issued',
  'license-answered',
  'first-frame',
];
const GATEWAY_FLOW = [
  'play',
  'token-requested',
  'token-received',
  'license-request-sent',
  'license-request-received',
  'callback-sent',
  'callback-answered',
  'license-issued',
  'license-answered',
  'first-frame',
];

/**
 * Proxy mode: no token in the page; the player asks the site's proxy, which decides, has the
 * license service issue the license and relays it: the hop between player and service.
 */
const PROXY_FLOW = [
  'play',
  'license-request-sent',
  'proxy-request',
  'proxy-decision',
  'license-request-received',
  'token-checked',
  'license-issued',
  'proxy-upstream',
  'license-answered',
  'first-frame',
];

/** The timeline's rows as step key and ms since Play, in their order on screen. */
function timedSteps(page: Page): Promise<{ step: string; at: number }[]> {
  return page.$$eval('[data-testid=timeline] li[data-step]', (rows) =>
    rows.map((row) => ({
      step: (row as HTMLElement).dataset['step'] ?? '',
      at: Number(/\+(\d+) ms/.exec(row.querySelector('.at')?.textContent ?? '')?.[1]),
    })),
  );
}

/** Each player and the manifest it is given. */
const PICKS: [PlayerName, string][] = [
  ['shaka', 'manifest.mpd'],
  ['hls', 'master.m3u8'],
  ['dash', 'manifest-clearkey.mpd'],
  ['videojs', 'manifest.mpd'],
];
/** Players that ask for a key again after a refusal, each time with a token fetch of its own. */
const ASKS_FOR_THE_KEY_AGAIN: readonly PlayerName[] = ['hls'];

describe.skipIf(skip)('pnpm demo:web', () => {
  test('prints its URL on 127.0.0.1 and serves the page', async () => {
    expect(demo.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    // The printed address carries the launch key; the page traded it for its cookie and dropped it.
    expect(demo.openUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?launch=[\w-]{32}$/);
    expect(page.url()).toBe(`${demo.url}/`);
    expect(await page.title()).toBe('multidrm demo');
    expect(await page.textContent('#shell')).toBe('browser (demo:web)');
  });

  test.each([
    ['token', TOKEN_FLOW],
    ['gateway-json', GATEWAY_FLOW],
    ['gateway-xml', GATEWAY_FLOW],
  ] as const)(
    '%s mode plays the decrypted clip and the timeline shows every step',
    async (mode, flow) => {
      await choose(page, { mode });
      expect(await waitForPlayback(page)).toBeGreaterThan(2);
      await page.waitForSelector('[data-testid=timeline] li[data-step=first-frame]');
      const steps = await timelineSteps(page);
      for (const step of flow) expect(steps, `step ${step}`).toContain(step);
      // Causes come before effects on the time axis.
      expect(steps.indexOf('token-requested')).toBeLessThan(steps.indexOf('license-request-sent'));
      expect(steps.indexOf('license-request-sent')).toBeLessThan(steps.indexOf('license-issued'));
      expect(steps.indexOf('license-issued')).toBeLessThan(steps.indexOf('first-frame'));
      expect(await page.isHidden('[data-testid=error]')).toBe(true);
      const times = await page.$$eval('[data-testid=timeline] li .at', (cells) =>
        cells.map((cell) => Number(/\+(\d+) ms/.exec(cell.textContent ?? '')?.[1])),
      );
      expect(times.every((t) => Number.isFinite(t))).toBe(true);
      expect([...times].sort((a, b) => a - b)).toEqual(times);
    },
  );

  test('the policy controls reach the license: persistent, HDCP and security level', async () => {
    await page.setChecked('[data-testid=persistent]', true);
    await page.selectOption('[data-testid=hdcp]', '1');
    await page.selectOption('[data-testid=security-level]', '150');
    try {
      await choose(page, { mode: 'token' });
      expect(await waitForPlayback(page)).toBeGreaterThan(2);
      const issued = await page.textContent('[data-testid=timeline] li[data-step=license-issued]');
      expect(issued).toContain('persistent-license');
      // Token mode writes a v2 token: no limit member, the same rules in the v2 shape.
      expect(issued).toContain('duration 3600 s · persistent · HDCP 1 · level 150');
      const checked = await page.textContent('[data-testid=timeline] li[data-step=token-checked]');
      expect(checked).toContain('Token verified (v2)');
    } finally {
      await page.setChecked('[data-testid=persistent]', false);
      await page.selectOption('[data-testid=hdcp]', '');
      await page.selectOption('[data-testid=security-level]', '');
    }
  });

  test('a screenshot of the demo playing is taken (MULTIDRM_UPDATE_SCREENSHOT=1 puts it in the README)', async () => {
    await choose(page, { mode: 'gateway-json' });
    await waitForPlayback(page, 2.5);
    await page.waitForSelector('[data-testid=timeline] li[data-step=first-frame]');
    await page.$eval(VIDEO, (video) => (video as HTMLVideoElement).pause());
    await mkdir(dirname(SCREENSHOT), { recursive: true });
    const shot = await page.screenshot({ path: SCREENSHOT });
    expect(shot.byteLength).toBeGreaterThan(20_000);
  });

  test.each(PLAYERS)(
    "%s: the gateway denying a guest shows the service's 8002, the site's code, our explanation and a fix",
    async (player) => {
      await choose(page, { mode: 'gateway-json', player, user: 'guest-bob' });
      const error = await waitForError(page);
      expect(error.code).toBe('8002');
      expect(error.text).toContain('The site refused: code 4031');
      expect(error.text).toContain('Why (emulator)');
      expect(error.text).toContain('What to fix');
      await page.waitForSelector('[data-testid=timeline] li[data-step=license-denied]');
      const steps = await timelineSteps(page);
      expect(steps).toContain('callback-answered');
      expect(steps).not.toContain('first-frame');
    },
  );

  test.each(PLAYERS)(
    '%s: the site refusing a token shows TOKEN_FETCH_FAILED with the HTTP status',
    async (player) => {
      await choose(page, { mode: 'token', player, user: 'guest-bob' });
      const error = await waitForError(page);
      expect(error.code).toBe('TOKEN_FETCH_FAILED');
      expect(error.text).toContain('HTTP 403');
      expect(await page.textContent('#status')).toBe('Stopped: TOKEN_FETCH_FAILED.');
      // Two rows: the prefetch's refusal is not replayed, so the license request asks the site
      // itself, once (the site's 403 is not retried). hls.js asks for the key again on its own
      // (rows of their own).
      if (!ASKS_FOR_THE_KEY_AGAIN.includes(player)) {
        expect((await timelineSteps(page)).filter((s) => s === 'token-failed')).toHaveLength(2);
      }
    },
  );

  test('an expire_date in the past is refused with 8711 (playback period over)', async () => {
    await choose(page, {
      mode: 'token',
      timeRule: 'expire_date',
      expireDate: '2020-01-01T00:00:00Z',
    });
    const error = await waitForError(page);
    expect(error.code).toBe('8711');
    expect(await timelineSteps(page)).toContain('license-denied');
  });

  test('a title without a key in the service needs the external key: 7001, then it plays', async () => {
    await choose(page, { mode: 'gateway-xml', cid: 'byok-sample', externalKey: false });
    expect((await waitForError(page)).code).toBe('7001');
    await choose(page, { mode: 'gateway-xml', cid: 'byok-sample', externalKey: true });
    expect(await waitForPlayback(page)).toBeGreaterThan(2);
    expect(await page.isHidden('[data-testid=error]')).toBe(true);
  });

  test('a policy that breaks the spec is refused before anything is sent', async () => {
    await page.setChecked('[data-testid=limit]', false);
    await choose(page, { mode: 'token', timeRule: 'duration' });
    const error = await waitForError(page);
    await page.setChecked('[data-testid=limit]', true);
    expect(error.code).toBe('INVALID_POLICY');
    expect(error.text).toContain('limit');
    expect(await timelineSteps(page)).toEqual(['play']);
  });

  test('the faults menu: "token expired, once" is refused with 7011, the player takes a fresh token and it plays', async () => {
    await choose(page, { mode: 'token', fault: 'token-expired' });
    expect(await waitForPlayback(page, 1)).toBeGreaterThan(1);
    const steps = await timelineSteps(page);
    expect(steps).toContain('fault-injected');
    expect(steps).toContain('license-denied');
    expect(steps.lastIndexOf('license-issued')).toBeGreaterThan(steps.indexOf('license-denied'));
  });

  test('the faults menu: "wrong hash" shows the service\'s 7019 in the error panel', async () => {
    await choose(page, { mode: 'token', fault: 'wrong-hash' });
    const error = await waitForError(page);
    expect(error.code).toBe('7019');
    expect(error.text).toContain('Injected fault');
    expect(await timelineSteps(page)).toContain('fault-injected');
  });

  describe('the Player picker', () => {
    test.each(PICKS)(
      '%s plays the decrypted clip from %s in token mode, with every step on the timeline',
      async (player, manifest) => {
        const from = requested.length;
        await choose(page, { mode: 'token', player });
        expect(await waitForPlayback(page)).toBeGreaterThan(2);
        await page.waitForSelector('[data-testid=timeline] li[data-step=first-frame]');
        const steps = await timelineSteps(page);
        for (const step of TOKEN_FLOW) expect(steps, `step ${step}`).toContain(step);
        expect(steps.indexOf('license-issued')).toBeLessThan(steps.indexOf('first-frame'));
        expect(await page.isHidden('[data-testid=error]')).toBe(true);

        // The player picked played the rendition made for it.
        const name = PLAYER_NAMES[player];
        expect(await page.textContent('#status')).toContain(`with ${name}, decrypted`);
        expect(await page.textContent('#plan')).toContain(`player${name}`);
        const paths = requested.slice(from).map((url) => new URL(url).pathname);
        expect(paths).toContain(`/${manifest}`);
        for (const [, other] of PICKS)
          if (other !== manifest) expect(paths).not.toContain(`/${other}`);
        // video.js makes the media element its tech, in a box of its own; the others play in it as it is.
        const techs = await page.$$eval(`${VIDEO}.vjs-tech`, (videos) => videos.length);
        expect(techs).toBe(player === 'videojs' ? 1 : 0);

        // Decrypted frames, not the black of a video without its key.
        await page.$eval(VIDEO, (video) => (video as HTMLVideoElement).pause());
        const frame = decodePng(await page.locator(VIDEO).screenshot());
        expect(isBlankFrame(frame), JSON.stringify(frameStats(frame))).toBe(false);
      },
    );
  });

  describe("proxy mode: the site's license proxy", () => {
    test.each(PICKS)(
      '%s plays the decrypted clip through the proxy, and the timeline shows the hop through the site',
      async (player) => {
        const from = requested.length;
        await choose(page, { mode: 'proxy', player });
        expect(await waitForPlayback(page)).toBeGreaterThan(2);
        await page.waitForSelector('[data-testid=timeline] li[data-step=first-frame]');
        await page.waitForSelector('[data-testid=timeline] li[data-step=proxy-upstream]');
        const rows = await timedSteps(page);
        const steps = rows.map((row) => row.step);
        for (const step of PROXY_FLOW) expect(steps, `step ${step}`).toContain(step);
        // No token in the browser: the page never asked the site for one.
        expect(steps).not.toContain('token-requested');
        // Each hop after the one before: player → site's proxy (its decision) → license service →
        // site's proxy → player. Rows of one millisecond may show in either order.
        const at = (step: string) => rows.find((row) => row.step === step)?.at ?? NaN;
        const times = PROXY_FLOW.map(at);
        expect(
          [...times].sort((a, b) => a - b),
          PROXY_FLOW.join(' → '),
        ).toEqual(times);
        expect(await page.isHidden('[data-testid=error]')).toBe(true);
        const decision = await page.textContent(
          '[data-testid=timeline] li[data-step=proxy-decision]',
        );
        expect(decision).toContain('user member-alice');
        expect(await page.textContent('#status')).toContain('license proxy mode');
        expect(await page.textContent('#plan')).toContain(`license proxy${demo.url}/license-proxy`);

        // The page sent its license requests to the site's proxy only, never to the service.
        const urls = requested.slice(from).map((url) => new URL(url));
        const licenses = urls.filter((url) => url.pathname === '/license-proxy');
        expect(licenses.length).toBeGreaterThan(0);
        for (const url of licenses) {
          expect(url.origin).toBe(demo.url);
          expect(url.searchParams.get('cid')).toBe('multidrm-sample');
        }
        expect(urls.some((url) => url.pathname.endsWith('/licenseManager.do'))).toBe(false);
        expect(urls.some((url) => url.pathname === '/token')).toBe(false);

        await page.$eval(VIDEO, (video) => (video as HTMLVideoElement).pause());
        const frame = decodePng(await page.locator(VIDEO).screenshot());
        expect(isBlankFrame(frame), JSON.stringify(frameStats(frame))).toBe(false);
      },
    );

    test.each(PLAYERS)(
      "%s: the site refusing a guest shows the proxy's SITE_REFUSED, and the service is never asked",
      async (player) => {
        await choose(page, { mode: 'proxy', player, user: 'guest-bob' });
        const error = await waitForError(page);
        expect(error.code).toBe('SITE_REFUSED');
        expect(error.text).toContain("The site's license proxy answered HTTP 403");
        expect(error.text).toContain('guest-bob is not entitled');
        expect(error.text).toContain('pick a member-… user');
        await page.waitForSelector('[data-testid=timeline] li[data-step=proxy-rejected]');
        const steps = await timelineSteps(page);
        expect(steps).toContain('proxy-decision');
        expect(
          await page.getAttribute(
            '[data-testid=timeline] li[data-step=proxy-decision]',
            'data-status',
          ),
        ).toBe('fail');
        expect(steps).not.toContain('license-request-received');
        expect(steps).not.toContain('first-frame');
      },
    );

    test('the faults menu: "token expired, once" is relayed as 7011, the proxy makes a fresh token for the second request and it plays', async () => {
      await choose(page, { mode: 'proxy', fault: 'token-expired' });
      expect(await waitForPlayback(page, 1)).toBeGreaterThan(1);
      await page.waitForFunction(
        () =>
          document.querySelectorAll('[data-testid=timeline] li[data-step=proxy-decision]').length >=
          2,
      );
      const steps = await timelineSteps(page);
      expect(steps).toContain('fault-injected');
      expect(steps).toContain('license-denied');
      expect(steps.filter((step) => step === 'license-request-sent')).toHaveLength(2);
      expect(steps.lastIndexOf('license-issued')).toBeGreaterThan(steps.indexOf('license-denied'));
    });
  });

  test('the page ran without script errors or CSP violations', () => {
    // After every player: the page's CSP holds for all four.
    expect(pageErrors).toEqual([]);
  });
});
