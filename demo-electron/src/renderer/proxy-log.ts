import { PROXY_EVENTS_PATH, type ProxyLogPage } from '../shared/proxy-events.ts';
import { proxyStep, type Step } from './flow-steps.ts';

/** The last entry of the site's proxy log this page has read (entries are numbered from 1). */
let seen = 0;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Proxy mode: reads the site's log of its license proxy (`GET /proxy-events`, on the page's own
 * origin, so the same in Electron's scheme and in a browser) while `current()` holds, and hands
 * each of its events at or after `since` (wall-clock ms) to `add` as a step. Often while the
 * proxy is busy, seldom once it is quiet (a renewal can still come).
 */
export async function followProxyLog(
  current: () => boolean,
  since: number,
  add: (step: Step) => void,
): Promise<void> {
  let lastNews = Date.now();
  while (current()) {
    try {
      const response = await fetch(`${PROXY_EVENTS_PATH}?after=${seen}`, { cache: 'no-store' });
      if (response.ok) {
        const { entries } = (await response.json()) as ProxyLogPage;
        for (const entry of entries) {
          seen = Math.max(seen, entry.seq);
          lastNews = Date.now();
          // The log keeps earlier runs too; only this run's events belong here.
          if (current() && entry.at >= since) add(proxyStep(entry));
        }
      }
    } catch {
      // The stack may be restarting: the next round asks again.
    }
    await sleep(Date.now() - lastNews < 10_000 ? 200 : 1_000);
  }
}
