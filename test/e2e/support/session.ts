import type { Page } from 'playwright-core';
import type { Harness, PlayerStatus, PlaySetup } from '../page/harness-api.ts';
import { findChromium, launchChromium, type LaunchedChromium } from './chromium.ts';
import { shownFrame, type ShownFrame } from './frame-check.ts';
import { SIGNED_IN_USER } from './site.ts';
import { startStack, type Stack } from './stack.ts';

/** One browser, one page and one stack for a whole test file. */
/**
 * Polls a player's status on the page until `done` holds; past the deadline, fails with what did
 * not happen and the last status seen.
 */
export async function pollStatus<S>(
  status: (id: string) => Promise<S>,
  id: string,
  what: string,
  done: (status: S) => boolean,
  timeoutMs = 15_000,
): Promise<S> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const now = await status(id);
    if (done(now)) return now;
    if (Date.now() > deadline) {
      throw new Error(
        `Player "${id}": ${what} did not happen within ${timeoutMs} ms; last status ${JSON.stringify(now)}`,
      );
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

export interface E2eSession {
  stack: Stack;
  page: Page;
  /** Uncaught exceptions of the page since the last `fresh()`. */
  pageErrors: string[];
  /** Loads the test page anew: no players, no state left from the previous test. */
  fresh(): Promise<void>;
  start(setup: PlaySetup): Promise<void>;
  status(id: string): Promise<PlayerStatus>;
  /** Polls the player until `done` holds; fails with the last status after `timeoutMs`. */
  waitFor(
    id: string,
    what: string,
    done: (status: PlayerStatus) => boolean,
    timeoutMs?: number,
  ): Promise<PlayerStatus>;
  /** Pauses at `seconds`, then screenshots the <video> element. */
  frameAt(id: string, seconds: number): Promise<ShownFrame>;
  unload(id: string): Promise<number>;
  /** Destroys every player on the page. */
  reset(): Promise<void>;
  close(): Promise<void>;
}

// Page functions run in the browser, where globalThis is the window holding the harness.
type HarnessWindow = { harness: Harness; document: { title: string } };

export async function openSession(): Promise<E2eSession> {
  // Before anything is started: a missing browser fails with its own message, at once.
  findChromium();
  const stack = await startStack();
  let browser: LaunchedChromium;
  try {
    browser = await launchChromium();
  } catch (error) {
    await stack.close();
    throw error;
  }
  const close = async () => {
    await Promise.allSettled([browser.close(), stack.close()]);
  };
  try {
    // The site knows the user by a cookie; it goes with the player's credentialed token requests.
    await browser.context.addCookies([
      { name: 'user', value: SIGNED_IN_USER, url: stack.site.url, sameSite: 'Lax' },
    ]);
    const page = browser.context.pages()[0] ?? (await browser.context.newPage());
    page.setDefaultTimeout(20_000);
    const pageErrors: string[] = [];
    page.on('pageerror', (error) => pageErrors.push(`${error.name}: ${error.message}`));

    const status = (id: string) =>
      page.evaluate((i) => (globalThis as unknown as HarnessWindow).harness.status(i), id);

    return {
      stack,
      page,
      pageErrors,
      async fresh() {
        pageErrors.length = 0;
        await page.goto(stack.pageUrl);
        await page.waitForFunction(
          () => (globalThis as unknown as HarnessWindow).document.title === 'ready',
          null,
          { timeout: 10_000 },
        );
      },
      start: (setup) =>
        page.evaluate((s) => (globalThis as unknown as HarnessWindow).harness.start(s), setup),
      status,
      waitFor: (id, what, done, timeoutMs) => pollStatus(status, id, what, done, timeoutMs),
      frameAt: (id, seconds) =>
        shownFrame(
          () =>
            page.evaluate(
              ([i, s]) => (globalThis as unknown as HarnessWindow).harness.showFrame(i, s),
              [id, seconds] as const,
            ),
          page.locator(`#${id}`),
          seconds,
        ),
      unload: (id) =>
        page.evaluate((i) => (globalThis as unknown as HarnessWindow).harness.unload(i), id),
      reset: () => page.evaluate(() => (globalThis as unknown as HarnessWindow).harness.reset()),
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}
