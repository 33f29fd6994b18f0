// Proxy mode (`licenseProxy`, issue #26) on the four players in a real browser: each adapter sends
// its license requests to the site's own license proxy (site-kit's createLicenseProxy on node:http,
// on another origin than the page, so its CORS runs), which decides from the user's cookie and
// forwards with a token it made to the real emulator. The page never holds a token.
import { createServer, type Server } from 'node:http';
import type { FlowEvent } from '@multidrm/emulator';
import {
  createLicenseProxy,
  toNodeListener,
  type LicenseProxyEvent,
  type ProxyDecision,
} from '@multidrm/site-kit';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { e2eSkipped, SKIP_NOTICE } from '../support/chromium.ts';
import { SAMPLE, SIGNED_IN_USER, SITE } from '../support/site.ts';
import { closeServer, listen } from '../support/static-server.ts';
import { ASSETS, manifestOf, useAdapterSession, type AdapterSession } from './adapter-session.ts';
import { PLAYERS, type PlayerName } from './page/adapter-api.ts';
import { expectDecryptedPlayback, firstAppError } from './playback-proof.ts';

const skip = e2eSkipped();
if (skip) console.warn(SKIP_NOTICE);

/** What the signed-in user may play: the sample, not episode 2. */
const REFUSED = { cid: ASSETS.b, reason: 'Not in your plan.' };

/** The site's decision, from its own session cookie, as a site's authorize makes it. */
function authorize(request: Request, asked: { cid: string }): ProxyDecision {
  const user = /(?:^|;\s*)user=([^;]+)/.exec(request.headers.get('cookie') ?? '')?.[1];
  if (user === undefined) return { allow: false, status: 401, reason: 'Sign in first.' };
  if (asked.cid === REFUSED.cid) return { allow: false, status: 403, reason: REFUSED.reason };
  return { allow: true, userId: user };
}

/** The emulator's verdicts on license requests, in order. */
const verdictsOn = (flow: FlowEvent[]): string[] =>
  flow.flatMap((e) =>
    e.type === 'license-denied'
      ? [`denied ${e.errorCode} (HTTP ${e.status})`]
      : e.type === 'license-issued'
        ? ['issued']
        : [],
  );

describe.skipIf(skip)('the four adapters through the site’s license proxy', () => {
  const session = useAdapterSession();
  let proxyUrl = '';
  let server: Server | undefined;
  const proxyEvents: LicenseProxyEvent[] = [];

  beforeAll(async () => {
    let stack: AdapterSession;
    try {
      stack = { emulator: session.emulator, origin: session.origin } as AdapterSession;
    } catch {
      return; // No session (no browser): each test fails with its reason.
    }
    const proxy = createLicenseProxy({
      ...SITE,
      licenseUrl: stack.emulator.licenseUrl,
      header: stack.emulator.config.customDataHeader,
      authorize,
      // The page is on another origin (another port): its credentialed requests need CORS.
      cors: { origins: [stack.origin] },
      onEvent: (event) => proxyEvents.push(event),
    });
    server = createServer(toNodeListener(proxy));
    proxyUrl = `${await listen(server)}/drm/license`;
  });
  afterAll(async () => {
    if (server) await closeServer(server);
  });
  afterEach(() => {
    session.emulator.faults.clear();
  });

  /** The player's page, loaded anew, started in proxy mode on `cid`'s manifest. */
  async function play(player: PlayerName, cid: string = SAMPLE.cid) {
    const { page } = session;
    await page.fresh();
    const flowAt = session.flow.length;
    const eventsAt = proxyEvents.length;
    const folder = cid === ASSETS.b ? 'content-b' : 'content';
    await page.start({
      id: player,
      player,
      manifestUrl: manifestOf(session, player, folder),
      options: {
        contentId: cid,
        licenseProxy: proxyUrl,
        // ClearKey, the key system this browser has, goes to the proxy as Widevine.
        drmTypes: { 'org.w3.clearkey': 'Widevine' },
      },
    });
    return {
      page,
      flow: () => session.flow.slice(flowAt),
      decisions: () =>
        proxyEvents
          .slice(eventsAt)
          .flatMap((e) =>
            e.type === 'decision' ? [`${e.allow ? 'allow' : 'refuse'} ${e.cid}`] : [],
          ),
    };
  }

  test.each(PLAYERS)(
    'the %s adapter plays the encrypted sample: no token in the page, the cookie decides',
    async (player) => {
      const { page, flow, decisions } = await play(player);
      const status = await expectDecryptedPlayback(page, player);
      expect(status.licenses.filter((l) => l.event === 'sent')).toEqual([
        { event: 'sent', refreshed: false, tokenSource: 'proxy' },
      ]);
      expect(verdictsOn(flow())).toEqual(['issued']);
      // The user the site knows by its cookie got the license: the cookie went to the proxy.
      expect(decisions()).toEqual([`allow ${SAMPLE.cid}`]);
      expect(flow()).toContainEqual(
        expect.objectContaining({ type: 'token-checked', ok: true, userId: SIGNED_IN_USER }),
      );
    },
  );

  test.each(PLAYERS)(
    "the %s adapter: a cid the site's authorize refuses is a TokenFetchError with the site's reason, and the emulator never hears of it",
    async (player) => {
      const { page, flow, decisions } = await play(player, REFUSED.cid);
      const { error, status } = await firstAppError(page, player);
      expect(error.auth, JSON.stringify(error)).toMatchObject({
        name: 'TokenFetchError',
        code: 'TOKEN_FETCH_FAILED',
      });
      expect(error.auth?.message).toContain(`HTTP 403 (SITE_REFUSED: ${REFUSED.reason})`);
      expect(error.auth?.message).toContain('the user must be signed in and allowed to play it');
      expect(status.currentTime).toBe(0);
      expect(new Set(decisions())).toEqual(new Set([`refuse ${REFUSED.cid}`]));
      expect(flow()).toEqual([]);
    },
  );

  test.each(PLAYERS)(
    'the %s adapter: a 7011 from the service is sent once more, the proxy makes a fresh token, the content plays',
    async (player) => {
      session.emulator.faults.set([{ fault: 'token-expired', times: 1 }]);
      const { page, flow, decisions } = await play(player);
      const status = await expectDecryptedPlayback(page, player);
      expect(status.licenses).toEqual([
        { event: 'sent', refreshed: false, tokenSource: 'proxy' },
        { event: 'answered', status: 200, errorCode: '7011' },
        { event: 'sent', refreshed: true, tokenSource: 'proxy' },
        { event: 'answered', status: 200 },
      ]);
      expect(verdictsOn(flow())).toEqual(['denied 7011 (HTTP 200)', 'issued']);
      expect(decisions()).toEqual([`allow ${SAMPLE.cid}`, `allow ${SAMPLE.cid}`]);
    },
  );

  test.each(PLAYERS)(
    'the %s adapter: an 8002 from the service reaches the app as the LicenseServiceError it is without a proxy',
    async (player) => {
      session.emulator.faults.set([{ fault: 'refuse', reason: 'GATEWAY_DENIED' }]);
      const { page, flow } = await play(player);
      const { error, status } = await firstAppError(page, player);
      // The emulator's refusal names no real site: its code table's placeholder is the site's code.
      expect(error.auth, JSON.stringify(error)).toMatchObject({
        name: 'LicenseServiceError',
        code: 'LICENSE_SERVICE_ERROR',
        errorCode: '8002',
        siteErrorCode: '<site code>',
        siteErrorMessage: '<site text>',
      });
      expect(status.currentTime).toBe(0);
      // Not a refusal a fresh token fixes: nothing is sent again.
      const sent = status.licenses.filter((l) => l.event === 'sent');
      expect(sent.length).toBeGreaterThan(0);
      expect(sent.every((l) => !l.refreshed)).toBe(true);
      expect(new Set(verdictsOn(flow()))).toEqual(new Set(['denied 8002 (HTTP 200)']));
    },
  );
});
