import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  e2eSkipped,
  launchChromium,
  SKIP_NOTICE,
  type LaunchedChromium,
} from '../../test/e2e/support/chromium.ts';
import { buildRenderer } from '../scripts/build-renderer.ts';
import type { Page } from './support/demo-page.ts';
import { startWebDemo, type RunningWebDemo } from './support/web-script.ts';

// The console as the demo's tab, on the `pnpm demo:web` stack under the demo's own CSP: it runs
// there as on its own page, and its probe answers for this renderer.

const skip = e2eSkipped();
if (skip) console.warn(SKIP_NOTICE);

describe.skipIf(skip)('the console tab of the demo', () => {
  let demo: RunningWebDemo;
  let browser: LaunchedChromium;
  let page: Page;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    await buildRenderer();
    demo = await startWebDemo();
    browser = await launchChromium({ viewport: { width: 1320, height: 900 } });
    page = await browser.context.newPage();
    page.setDefaultTimeout(15_000);
    page.on('pageerror', (error) => pageErrors.push(error.message));
    page.on('console', (message) => {
      if (message.text().includes('Content Security Policy')) pageErrors.push(message.text());
    });
    await page.goto(demo.openUrl);
  });

  afterAll(async () => {
    await browser?.close();
    await demo?.stop();
  });

  test('the Console tab replaces the demo, encrypts the first AES vector and probes ClearKey', async () => {
    await page.click('[data-testid="view-console"]');
    expect(await page.isHidden('main.grid')).toBe(true);
    await page.click('[data-testid="console"] [data-tab-button="aes"]');
    await page.fill('[data-field="aes.siteKey"]', 'a'.repeat(32));
    await page.fill('[data-field="aes.plaintext"]', 'sample data');
    await page.click('[data-action="encrypt"]');
    await page.waitForSelector('[data-output="aes"][data-code="OK"]');
    expect(await page.inputValue('[data-field="aes.ciphertext"]')).toBe('MManHcZraU/jcWYK/cQRgw==');

    await page.click('[data-testid="console"] [data-tab-button="browser"]');
    await page.click('[data-action="probe"]');
    await page.waitForSelector('[data-output="probe"][data-state="done"]');
    expect(await page.getAttribute('[data-row="clearkey"]', 'data-supported')).toBe('true');
    expect(await page.getAttribute('[data-row="widevine-hw-all"]', 'data-supported')).toBe('false');

    await page.click('[data-testid="view-demo"]');
    expect(await page.isHidden('[data-testid="console"]')).toBe(true);
    expect(await page.isVisible('main.grid')).toBe(true);
    expect(pageErrors).toEqual([]);
  });
});
