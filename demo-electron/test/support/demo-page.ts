import type { LaunchedChromium } from '../../../test/e2e/support/chromium.ts';
import type { Mode, PlayerName } from '../../src/shared/contract.ts';

/** A playwright page (its types reached through the workspace's Chromium launcher). */
export type Page = Awaited<ReturnType<LaunchedChromium['context']['newPage']>>;

export interface PlayChoice {
  mode: Mode;
  /** Shaka Player by default. */
  player?: PlayerName;
  user?: string;
  cid?: string;
  timeRule?: 'none' | 'duration' | 'expire_date';
  expireDate?: string;
  externalKey?: boolean;
  /** A fault of the faults menu by its name; none by default. */
  fault?: string;
}

/** Fills the page's controls through the stable hooks and presses Play. */
export async function choose(page: Page, choice: PlayChoice): Promise<void> {
  await page.waitForSelector('[data-testid=play]:not([disabled])', { timeout: 15_000 });
  await page.selectOption('[data-testid=mode]', choice.mode);
  await page.selectOption('[data-testid=player]', choice.player ?? 'shaka');
  await page.fill('[data-testid=user]', choice.user ?? 'member-alice');
  await page.selectOption('[data-testid=content]', choice.cid ?? 'multidrm-sample');
  await page.selectOption('[data-testid=time-rule]', choice.timeRule ?? 'duration');
  if (choice.expireDate !== undefined)
    await page.fill('[data-testid=expire-date]', choice.expireDate);
  await page.setChecked('[data-testid=external-key]', choice.externalKey ?? false);
  await page.selectOption('[data-testid=fault]', choice.fault ?? '');
  await page.click('[data-testid=play]');
}

/** The <video> of the current play (each play gets a new one; video.js wraps it in its own box). */
export const VIDEO = '[data-testid=video-slot] video';

/** Waits until the video has played past `seconds` (decrypted frames really advance). */
export async function waitForPlayback(page: Page, seconds = 2): Promise<number> {
  await page.waitForFunction(
    ([selector, s]) =>
      ((document.querySelector(selector) as HTMLVideoElement | null)?.currentTime ?? 0) > s,
    [VIDEO, seconds] as const,
    { timeout: 20_000 },
  );
  return page.$eval(VIDEO, (video) => (video as HTMLVideoElement).currentTime);
}

/** The timeline's step keys in their order on screen. */
export function timelineSteps(page: Page): Promise<string[]> {
  return page.$$eval('[data-testid=timeline] li[data-step]', (rows) =>
    rows.map((row) => (row as HTMLElement).dataset['step'] ?? ''),
  );
}

/** Waits for the error panel and returns its code and text. */
export async function waitForError(page: Page): Promise<{ code: string; text: string }> {
  const panel = await page.waitForSelector('[data-testid=error]:not([hidden])', {
    timeout: 20_000,
  });
  return {
    code: (await panel.getAttribute('data-code')) ?? '',
    text: await panel.innerText(),
  };
}
