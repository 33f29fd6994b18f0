import type { LicenseProxyEvent } from '@multidrm/site-kit/proxy';

/**
 * The site's license proxy reports each step to its `onEvent` (request, decision, upstream, and its
 * own refusals and failures): the demo keeps the last of them in main and the page reads them from
 * the site, `GET /proxy-events?after=<seq>`, to show the proxy's hop on the timeline. A site's log
 * of its own proxy: names, codes and timings, never a token, key or cookie.
 */
export const PROXY_EVENTS_PATH = '/proxy-events';

/** One event of the proxy, numbered and stamped in main when the proxy reported it. */
export interface ProxyLogEntry {
  /** 1, 2, 3… for the life of the stack: the page asks for the entries after the last it saw. */
  seq: number;
  /** Wall-clock ms since the epoch, as the emulator's events are stamped. */
  at: number;
  event: LicenseProxyEvent;
}

/** The answer of `GET /proxy-events?after=<seq>`: the kept entries after `seq`, oldest first. */
export interface ProxyLogPage {
  entries: ProxyLogEntry[];
}
