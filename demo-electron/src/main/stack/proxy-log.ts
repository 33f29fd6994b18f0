import type { LicenseProxyEvent } from '@multidrm/site-kit/proxy';
import type { ProxyLogEntry, ProxyLogPage } from '../../shared/proxy-events.ts';

export interface ProxyLog {
  /** The proxy's `onEvent`: numbers and stamps the event, keeping the last `keep`. */
  record(event: LicenseProxyEvent): void;
  /** The kept entries after `after`, oldest first. */
  after(after: number): ProxyLogEntry[];
  /** `GET /proxy-events?after=<seq>` (the route is the caller's to match). */
  handle(request: Request): Response;
}

const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/json', 'cache-control': 'no-store', ...headers },
  });

/**
 * The site's log of its license proxy, for the page's timeline: the proxy's events as it reported
 * them (they carry names, codes and timings, never a token or a cookie). Bounded, so a page that
 * stops reading costs nothing.
 */
export function createProxyLog(keep = 200, now: () => number = Date.now): ProxyLog {
  let entries: ProxyLogEntry[] = [];
  let seq = 0;
  const after = (from: number) => entries.filter((entry) => entry.seq > from);
  return {
    record(event) {
      entries.push({ seq: ++seq, at: now(), event });
      if (entries.length > keep) entries = entries.slice(-keep);
    },
    after,
    handle(request) {
      if (request.method !== 'GET' && request.method !== 'HEAD') {
        return json(
          405,
          { code: 'METHOD_NOT_ALLOWED', message: 'The proxy log is read with GET.' },
          { allow: 'GET, HEAD' },
        );
      }
      const given = new URL(request.url).searchParams.get('after') ?? '0';
      if (!/^\d{1,15}$/.test(given)) {
        return json(400, {
          code: 'BAD_AFTER',
          message: 'after: must be the number of the last entry seen (0 for all).',
        });
      }
      const page: ProxyLogPage = { entries: after(Number(given)) };
      return json(200, page);
    },
  };
}
