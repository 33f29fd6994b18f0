import { describe, expect, test } from 'vitest';
import { playerStep, proxyStep } from '../src/renderer/flow-steps.ts';
import type { ProxyLogEntry } from '../src/shared/proxy-events.ts';

// The timeline's rows for the site's license proxy (proxy mode): each of its events, as the page
// reads them from the proxy log.

const at = 1_700_000_000_000;
const entry = (event: ProxyLogEntry['event']): ProxyLogEntry => ({ seq: 1, at, event });

describe("the proxy's rows on the timeline", () => {
  test('each event is a step in the site lane, at the time main logged it', () => {
    const rows = [
      proxyStep(entry({ type: 'request', kind: 'license', drmType: 'Widevine', cid: 'c' })),
      proxyStep(
        entry({
          type: 'decision',
          drmType: 'Widevine',
          cid: 'c',
          allow: true,
          status: 200,
          userId: 'member-alice',
        }),
      ),
      proxyStep(
        entry({ type: 'upstream', kind: 'license', drmType: 'Widevine', status: 200, ms: 7 }),
      ),
    ];
    expect(rows.map(({ key, lane, status }) => [key, lane, status])).toEqual([
      ['proxy-request', 'site', 'info'],
      ['proxy-decision', 'site', 'ok'],
      ['proxy-upstream', 'site', 'ok'],
    ]);
    expect(rows.every((row) => row.at === at)).toBe(true);
    expect(rows[1]?.detail).toBe('user member-alice, cid c · the token never reaches the browser');
    expect(rows[2]?.detail).toBe('7 ms');
  });

  test("a refusal, the service's refusal and the proxy's own failures are failures", () => {
    const refused = proxyStep(
      entry({ type: 'decision', drmType: 'Widevine', cid: 'c', allow: false, status: 403 }),
    );
    expect(refused).toMatchObject({
      status: 'fail',
      what: 'Site refused it from its session (HTTP 403)',
    });
    const serviceRefusal = proxyStep(
      entry({
        type: 'upstream',
        kind: 'license',
        drmType: 'Widevine',
        status: 200,
        ms: 3,
        errorCode: '7011',
      }),
    );
    expect(serviceRefusal).toMatchObject({ status: 'fail', detail: '3 ms · service code 7011' });
    const unavailable = proxyStep(
      entry({ type: 'upstream', kind: 'license', drmType: 'Widevine', status: 503, ms: 3 }),
    );
    expect(unavailable.status).toBe('fail');
    for (const type of ['rejected', 'error'] as const) {
      const own = proxyStep(
        entry({ type, status: 502, code: 'UPSTREAM_UNREACHABLE', reason: 'no answer' }),
      );
      expect(own).toMatchObject({
        key: `proxy-${type}`,
        what: "Site's proxy answered UPSTREAM_UNREACHABLE (HTTP 502)",
        detail: 'no answer',
        status: 'fail',
      });
    }
  });

  test("the player's request in proxy mode is drawn to the site's proxy, with no token", () => {
    const step = playerStep(
      {
        name: 'licenseRequestSent',
        event: {
          keySystem: 'org.w3.clearkey',
          drmType: 'Widevine',
          cid: 'c',
          attempt: 0,
          tokenWaitMs: 0,
          tokenSource: 'proxy',
          licenseRequestType: null,
          refreshed: false,
        },
      } as Parameters<typeof playerStep>[0],
      at,
    );
    expect(step).toMatchObject({
      key: 'license-request-sent',
      what: "Player → site's license proxy: license request",
      detail: 'org.w3.clearkey as Widevine · no token in the browser: the site adds it',
    });
  });
});
