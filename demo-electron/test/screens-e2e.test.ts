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
import { buildRenderer } from '../scripts/build-renderer.ts';
import { PLAYERS, STREAM_GRACE_SECONDS } from '../src/shared/contract.ts';
import type { Page } from './support/demo-page.ts';
import { startWebDemo, type RunningWebDemo } from './support/web-script.ts';

// The screens control in headless Chromium on the `pnpm demo:web` stack: three players of one user
// whom the site allows two streams, renewing through the player's renewal driver at the interval
// the token endpoint answers (x-renewal-interval), with a fresh token each time.

const SCREENSHOT =
  process.env.MULTIDRM_UPDATE_SCREENSHOT === '1'
    ? fileURLToPath(new URL('../docs/screens.png', import.meta.url))
    : join(tmpdir(), 'multidrm-demo-screens.png');
/** A short interval, so that renewals come and a slot frees within seconds. */
const INTERVAL = 2;

let demo: RunningWebDemo;
let browser: LaunchedChromium;
let page: Page;
const pageErrors: string[] = [];

const skip = e2eSkipped();
if (skip) console.warn(SKIP_NOTICE);

beforeAll(async () => {
  if (skip) return;
  await buildRenderer();
  demo = await startWebDemo();
  browser = await launchChromium({ viewport: { width: 1320, height: 980 } });
  page = await browser.context.newPage();
  page.on('pageerror', (error) => pageErrors.push(error.message));
  await page.goto(demo.openUrl);
});

afterAll(async () => {
  await browser?.close();
  await demo?.stop();
});

const screen = (n: number) => `[data-testid=screens-list] [data-testid=screen-${n}]`;

/** Waits until screen `n` is in `state` (playing, refused) and returns its code and text. */
async function settled(n: number, state: 'playing' | 'refused') {
  const item = await page
    .waitForSelector(`${screen(n)}[data-state=${state}]`, {
      timeout: 20_000,
    })
    .catch(async (error: unknown) => {
      // What the screen shows instead says why (a refusal's code and fix, or still loading).
      const shown = await page.$(screen(n));
      const what = shown
        ? `it is ${await shown.getAttribute('data-state')}: ${await shown.innerText()}`
        : 'it is not on the page';
      throw new Error(`Screen ${n} is not ${state} after 20 s; ${what}`, { cause: error });
    });
  return { code: (await item.getAttribute('data-code')) ?? '', text: await item.innerText() };
}

/** The timeline's rows of one screen: step key and text. */
const rowsOf = (n: number) =>
  page.$$eval(`[data-testid=timeline] li[data-screen="${n}"]`, (rows) =>
    rows.map((row) => ({
      step: (row as HTMLElement).dataset['step'] ?? '',
      text: row.textContent ?? '',
    })),
  );

describe.skipIf(skip)('the screens control', () => {
  test.each(PLAYERS)(
    '%s: two screens play and renew with fresh tokens, the third gets 6003, a closed one frees its slot',
    async (player) => {
      await page.waitForSelector('[data-testid=screen-open]:not([disabled])', { timeout: 15_000 });
      await page.selectOption('[data-testid=player]', player);
      // A user of its own: the streams of the last one still count for a while.
      await page.fill('[data-testid=user]', `member-${player}-fan`);
      await page.selectOption('[data-testid=content]', 'multidrm-sample');
      await page.fill('[data-testid=screens-interval]', String(INTERVAL));

      // One at a time, so that the third to ask is the one refused.
      await page.click('[data-testid=screen-open]');
      await settled(1, 'playing');
      await page.click('[data-testid=screen-open]');
      await settled(2, 'playing');
      await page.click('[data-testid=screen-open]');
      const third = await settled(3, 'refused');
      expect(third.code).toBe('6003');
      expect(third.text).toContain('Concurrent stream limit reached');
      expect(await page.isDisabled('[data-testid=screen-open]')).toBe(true);

      // Screen 1 renews at the interval, each time with a token fetched for the renewal.
      await page.waitForFunction(
        () =>
          document.querySelectorAll(
            '[data-testid=timeline] li[data-step=license-renewed][data-screen="1"]',
          ).length >= 3,
        undefined,
        { timeout: 30_000 },
      );
      const rows = await rowsOf(1);
      const renewals = rows.filter((row) => row.step === 'license-renewal-sent');
      expect(renewals.length).toBeGreaterThanOrEqual(3);
      for (const row of renewals) expect(row.text).toContain('token fetched for it');
      expect(rows.filter((row) => row.step === 'token-received').length).toBeGreaterThan(
        renewals.length,
      );
      // The service counted each as a renewal of the screen's stream, not as a new stream.
      const service = await page.$$eval(
        '[data-testid=timeline] li[data-step=license-issued]',
        (r) => r.map((row) => row.textContent ?? ''),
      );
      expect(service.filter((text) => text.includes('a renewal of stream')).length).toBeGreaterThan(
        0,
      );
      // The video of screen 1 plays on across its renewals.
      const playedAt = await page.$eval(
        `${screen(1)} video`,
        (v) => (v as HTMLVideoElement).currentTime,
      );
      expect(playedAt).toBeGreaterThan(INTERVAL * 2);

      if (player === 'shaka') {
        // The picture of the control: two screens playing, the third refused, the renewals on the timeline.
        await mkdir(dirname(SCREENSHOT), { recursive: true });
        expect((await page.screenshot({ path: SCREENSHOT })).byteLength).toBeGreaterThan(20_000);
      }

      // Screen 1 closes: it stops renewing, and interval + grace later screen 3 gets its slot.
      await page.click('[data-testid=screen-close-1]');
      expect(await page.$(screen(1))).toBeNull();
      const deadline = Date.now() + (INTERVAL + STREAM_GRACE_SECONDS + 20) * 1000;
      let state = 'refused';
      while (state !== 'playing' && Date.now() < deadline) {
        await page.click(`[data-testid=screen-retry-3]`);
        await page.waitForSelector(`${screen(3)}:not([data-state=loading])`, { timeout: 20_000 });
        state = (await page.getAttribute(screen(3), 'data-state')) ?? '';
        if (state === 'refused') {
          expect(await page.getAttribute(screen(3), 'data-code')).toBe('6003');
          await page.waitForTimeout(1_000);
        }
      }
      expect(state).toBe('playing');
      expect(pageErrors).toEqual([]);
      // The next player starts with no screen open.
      for (const n of [2, 3]) await page.click(`[data-testid=screen-close-${n}]`);
      expect(await page.$$('[data-testid=screens-list] li')).toHaveLength(0);
    },
  );
});
