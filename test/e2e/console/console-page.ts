import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { build } from 'vite';
import { launchChromium, type LaunchedChromium } from '../support/chromium.ts';
import { startStaticServer, type StaticServer } from '../support/static-server.ts';

// The console as a team hosts it: `vite build` output on a static server, opened in Chromium. A
// watcher records every request the page makes once it has loaded.

const consoleDir = join(import.meta.dirname, '../../../packages/console');

export interface ConsolePage {
  page: Page;
  origin: string;
  /** URLs the page requested after its load event. */
  requestsAfterLoad: string[];
  /** What Chromium's console said was wrong while the page loaded and ran (errors, failed requests). */
  consoleErrors: string[];
  close(): Promise<void>;
}

export async function buildConsole(): Promise<{ dir: string; remove(): Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'multidrm-console-'));
  await build({
    configFile: join(consoleDir, 'vite.config.ts'),
    logLevel: 'warn',
    build: { outDir: dir, emptyOutDir: true },
  });
  return { dir, remove: () => rm(dir, { recursive: true, force: true }) };
}

export async function openConsole(dir: string): Promise<ConsolePage> {
  let server: StaticServer | undefined;
  let browser: LaunchedChromium | undefined;
  try {
    server = await startStaticServer({ '/': dir });
    browser = await launchChromium({ viewport: { width: 1100, height: 900 } });
    const page = browser.context.pages()[0] ?? (await browser.context.newPage());
    page.setDefaultTimeout(15_000);
    const requestsAfterLoad: string[] = [];
    const consoleErrors: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error')
        consoleErrors.push(`${message.text()} @ ${message.location().url}`);
    });
    page.on('pageerror', (error) => consoleErrors.push(error.message));
    page.on('response', (response) => {
      if (response.status() >= 400) consoleErrors.push(`${response.status()} ${response.url()}`);
    });
    let loaded = false;
    page.on('request', (request) => {
      if (loaded) requestsAfterLoad.push(request.url());
    });
    await page.goto(`${server.origin}/`, { waitUntil: 'load' });
    loaded = true;
    await page.waitForSelector('[data-tab-button="token"]');
    const opened = { server, browser };
    return {
      page,
      origin: server.origin,
      requestsAfterLoad,
      consoleErrors,
      async close() {
        await opened.browser.close();
        await opened.server.close();
      },
    };
  } catch (error) {
    await browser?.close();
    await server?.close();
    throw error;
  }
}

/** Fills fields by their data-field names, within the visible tab. */
export async function fill(page: Page, values: Record<string, string>): Promise<void> {
  for (const [name, value] of Object.entries(values)) {
    const input = page.locator(`[data-field="${name}"]`);
    if ((await input.evaluate((e) => e.tagName)) === 'SELECT') await input.selectOption(value);
    else await input.fill(value);
  }
}

export async function tab(page: Page, id: string): Promise<void> {
  await page.click(`[data-tab-button="${id}"]`);
}

export async function act(page: Page, action: string): Promise<void> {
  await page.click(`[data-action="${action}"]`);
}

/** The text of an output once it has some. */
export async function output(page: Page, selector: string): Promise<string> {
  const locator = page.locator(selector).first();
  await locator.waitFor({ state: 'attached' });
  // A string, evaluated in the page: this file is type-checked without the DOM library.
  await page.waitForFunction(
    `(document.querySelector(${JSON.stringify(selector)})?.textContent ?? '').trim().length > 0`,
  );
  return (await locator.textContent()) ?? '';
}

/** Saves a screenshot of the page when MULTIDRM_CONSOLE_SCREENSHOTS names a folder (README images). */
export async function screenshot(page: Page, name: string): Promise<void> {
  const dir = process.env['MULTIDRM_CONSOLE_SCREENSHOTS'];
  if (dir) await page.screenshot({ path: join(dir, `${name}.png`), fullPage: true });
}
