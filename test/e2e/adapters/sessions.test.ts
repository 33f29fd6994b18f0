// A whole viewing session on one player, for each of the four adapters, in Chromium with ClearKey
// against the emulator: a playlist, a switch while a token is on its way, a Shaka Storage download
// beside the player's loads, the app's own envelope around the challenge with a 7011 refusal, and
// a license URL that only lets the site's own users through (a cookie, an app header).
import type { FlowEvent } from '@multidrm/emulator';
import { describe, expect, test } from 'vitest';
import { e2eSkipped, SKIP_NOTICE } from '../support/chromium.ts';
import { ENVELOPE, GATE_HEADER } from '../support/license-gate.ts';
import { PLAYERS, type AdapterSetup, type PlayerName } from './page/adapter-api.ts';
import { SAMPLE } from '../support/site.ts';
import {
  ASSETS,
  B_KID,
  manifestOf,
  startFresh,
  useAdapterSession,
  type AdapterSession,
} from './adapter-session.ts';
import { expectDecryptedPlayback, firstAppError } from './playback-proof.ts';

const skip = e2eSkipped();
if (skip) console.warn(SKIP_NOTICE);

/** The cids of the licenses the emulator issued: the cid is read from the token the request carried. */
const issuedCids = (flow: FlowEvent[]) =>
  flow.flatMap((e) => (e.type === 'license-issued' ? [e.cid] : []));
/** The key IDs of the licenses issued for `cid`. */
const issuedKids = (flow: FlowEvent[], cid: string) =>
  flow.flatMap((e) => (e.type === 'license-issued' && e.cid === cid ? e.kids : []));
const verdictsOn = (flow: FlowEvent[]) =>
  flow.flatMap((e) =>
    e.type === 'license-denied'
      ? [`denied ${e.errorCode}`]
      : e.type === 'license-issued'
        ? ['issued']
        : [],
  );
/** The same cid asked again in a row (hls.js asks for the audio track's key too) counts once. */
const inTurn = (cids: string[]) => cids.filter((cid, i) => cid !== cids[i - 1]);

/** After next(): plays past 2 s again, decrypted, with no error (the frame check at 2 s). */
async function expectNextPlays(
  session: AdapterSession,
  player: PlayerName,
  cid: string,
  timeoutMs = 20_000,
) {
  await session.page.waitFor(
    player,
    `${cid}'s license`,
    (s) => s.sentCids.includes(cid),
    timeoutMs,
  );
  return expectDecryptedPlayback(session.page, player);
}

describe.skipIf(skip)('a viewing session on one player', () => {
  const session = useAdapterSession();
  const licenseServer = () => ({ 'org.w3.clearkey': session.emulator.licenseUrl });

  describe('a playlist: A plays, then B on the same player', () => {
    test.each(PLAYERS)(
      "the %s adapter sends B's license request with B's token",
      async (player) => {
        const { page, flow } = await startFresh(session, player, {
          options: {
            name: ASSETS.a,
            tokenUrl: `${session.site.url}/token`,
            licenseServer: licenseServer(),
          },
        });
        await expectDecryptedPlayback(page, player);
        await page.next(player, {
          cid: ASSETS.b,
          manifestUrl: manifestOf(session, player, 'content-b'),
        });
        const status = await expectNextPlays(session, player, ASSETS.b);
        expect(inTurn(status.sentCids)).toEqual([ASSETS.a, ASSETS.b]);
        expect(inTurn(issuedCids(flow()))).toEqual([ASSETS.a, ASSETS.b]);
      },
    );
  });

  describe("a switch while A's token is on its way", () => {
    test.each(PLAYERS)(
      "the %s adapter: B plays, the app hears no error, no A token goes with B's request",
      async (player) => {
        const site = session.site.url;
        const { page, flow, siteLog } = await startFresh(session, player, {
          options: {
            name: ASSETS.a,
            tokenUrlFor: { [ASSETS.a]: `${site}/token?delay=hang`, [ASSETS.b]: `${site}/token` },
            licenseServer: licenseServer(),
          },
        });
        const held = (log: ReturnType<typeof siteLog>, type: string) =>
          log.some((e) => e.source === 'connection' && e.event.type === type);
        // A's token is held by the site, and the content asked for its key.
        await expect.poll(() => held(siteLog(), 'held'), { timeout: 15_000 }).toBe(true);
        await page.waitFor(player, 'the encrypted event', (s) => s.encrypted);

        await page.next(player, {
          cid: ASSETS.b,
          manifestUrl: manifestOf(session, player, 'content-b'),
        });
        const status = await expectNextPlays(session, player, ASSETS.b);
        expect(new Set(status.sentCids)).toEqual(new Set([ASSETS.b]));
        expect(new Set(issuedCids(flow()))).toEqual(new Set([ASSETS.b]));
        // The browser dropped A's token request: the handle aborted it with A's load.
        await expect.poll(() => held(siteLog(), 'client-gone'), { timeout: 10_000 }).toBe(true);
      },
    );
  });

  /** Shaka playing A, with tokens for A, B and the download (the download's from `downloadToken`). */
  async function playingAWithDownloadToken(downloadToken: string) {
    const site = session.site.url;
    const started = await startFresh(session, 'shaka', {
      options: {
        name: ASSETS.a,
        tokenUrlFor: {
          [ASSETS.a]: `${site}/token`,
          [ASSETS.b]: `${site}/token`,
          [ASSETS.download]: `${site}${downloadToken}`,
        },
        licenseServer: licenseServer(),
      },
    });
    await expectDecryptedPlayback(started.page, 'shaka');
    return started;
  }

  /**
   * Over a slow CDN, starts the download, runs `meanwhile`, moves the player on to B, and waits for
   * the download to be stored; then B plays, and A's and B's licenses were issued with B's own key.
   */
  async function downloadWhileSwitching(
    { page, flow }: Awaited<ReturnType<typeof playingAWithDownloadToken>>,
    meanwhile: () => Promise<void> = async () => {},
  ) {
    session.statics.latencyMs = 500;
    try {
      await page.store('shaka', {
        cid: ASSETS.download,
        manifestUrl: manifestOf(session, 'shaka', 'content-download'),
      });
      await meanwhile();
      await page.next('shaka', {
        cid: ASSETS.b,
        manifestUrl: manifestOf(session, 'shaka', 'content-b'),
      });
      const status = await page.waitFor(
        'shaka',
        'the download',
        (s) => s.stored !== undefined,
        30_000,
      );
      expect(status.stored).toBe('done');
    } finally {
      session.statics.latencyMs = 0;
    }
    await expectNextPlays(session, 'shaka', ASSETS.b);
    expect(inTurn(issuedCids(flow()))).toEqual([ASSETS.a, ASSETS.b]);
    // B's license was asked for and carried B's own key ID.
    expect(issuedKids(flow(), ASSETS.b)).toEqual([B_KID]);
  }

  // B names its own key ID (adapter-session.ts): Shaka cannot play it on A's key, it must ask B's
  // license while the download's token is still held.
  test('Shaka: a Storage download completes while the player unloads A and loads B', async () => {
    const started = await playingAWithDownloadToken('/token?delay=1500');
    const { siteLog } = started;
    const heldDownload = () =>
      siteLog().filter((e) => e.source === 'connection' && e.path.includes('delay=1500'));
    await downloadWhileSwitching(started, async () => {
      // The download's token is on its way (held by the site) when the player moves on.
      await expect.poll(() => heldDownload().map((e) => e.event.type)).toEqual(['held']);
    });
    expect(heldDownload().map((e) => e.event.type)).toEqual(['held']);
    // B's token was asked for before the download's arrived: the switch came while it was held.
    const decisions = siteLog().flatMap((e) =>
      e.source === 'token' && e.event.type !== 'rejected' && e.event.type !== 'error'
        ? [`${e.event.type} ${e.event.cid}`]
        : [],
    );
    expect(decisions.indexOf(`request ${ASSETS.b}`)).toBeLessThan(
      decisions.indexOf(`decision ${ASSETS.download}`),
    );
  });

  // B's load starts its DRM engine, and asks for B's license, well before the player takes that
  // engine over, while the download is still under way: the request of an engine the player does
  // not report yet is B's, not the download's (given to the download, it carried the download's
  // token and was refused with 7012).
  test("Shaka: B's first license request comes before a download's, and each keeps its own", async () => {
    await downloadWhileSwitching(await playingAWithDownloadToken('/token'));
  });

  describe('Shaka: each preload and download carries its own cid, whatever the order', () => {
    /** Shaka playing A (named with auth.load), with the site's tokens for every cid. */
    async function playingA() {
      const started = await startFresh(session, 'shaka', {
        options: {
          name: ASSETS.a,
          tokenUrl: `${session.site.url}/token`,
          licenseServer: licenseServer(),
        },
      });
      await expectDecryptedPlayback(started.page, 'shaka');
      return started;
    }
    const asset = (cid: string, dir: string) => ({
      cid,
      manifestUrl: manifestOf(session, 'shaka', dir),
    });

    // A preload asks for its licenses while it preloads (Shaka creates its sessions from the
    // manifest's init data), both at once here. The download asset is A's content under its own
    // cid: licensed on B's token it would be refused, and B on its token too.
    test('two preloads, the second played first: each is licensed for its own cid and key', async () => {
      const { page, flow } = await playingA();
      await page.shaka('shaka', { preload: asset(ASSETS.b, 'content-b') });
      await page.shaka('shaka', { preload: asset(ASSETS.download, 'content-download') });
      await page.shaka('shaka', { loadPreloaded: ASSETS.download });
      await expectNextPlays(session, 'shaka', ASSETS.download);
      await page.shaka('shaka', { loadPreloaded: ASSETS.b });
      await expectNextPlays(session, 'shaka', ASSETS.b);
      expect(new Set(issuedCids(flow()))).toEqual(new Set([ASSETS.a, ASSETS.download, ASSETS.b]));
      expect(new Set(issuedKids(flow(), ASSETS.download))).toEqual(new Set([SAMPLE.kid]));
      expect(new Set(issuedKids(flow(), ASSETS.b))).toEqual(new Set([B_KID]));
      expect(new Set(verdictsOn(flow()))).toEqual(new Set(['issued']));
    });

    test("a preload never played, then A loaded again: A's license goes with A's token", async () => {
      const { page, flow } = await playingA();
      await page.shaka('shaka', { preload: asset(ASSETS.b, 'content-b') });
      await page.shaka('shaka', { reload: manifestOf(session, 'shaka', 'content') });
      const sentA = (s: { sentCids: string[] }) => s.sentCids.filter((c) => c === ASSETS.a);
      await page.waitFor('shaka', "A's second license", (s) => sentA(s).length >= 2);
      await expectDecryptedPlayback(page, 'shaka');
      const issuedA = flow().filter((e) => e.type === 'license-issued' && e.cid === ASSETS.a);
      expect(issuedA.length).toBeGreaterThanOrEqual(2);
      expect(new Set(issuedKids(flow(), ASSETS.b))).toEqual(new Set([B_KID]));
      expect(new Set(verdictsOn(flow()))).toEqual(new Set(['issued']));
    });

    // This browser's ClearKey keeps no persistent licenses: a Storage stores without asking for
    // one (the license requests of two downloads are in packages/player/test/playlist-shaka.test.ts).
    test('two Storage downloads at once beside A: both complete, each with its own token', async () => {
      const { page, flow, siteLog } = await playingA();
      const logAt = siteLog().length;
      await page.store('shaka', asset(ASSETS.download, 'content-download'));
      await page.store('shaka', asset(ASSETS.b, 'content-b'));
      const status = await page.waitFor(
        'shaka',
        'both downloads',
        (s) => Object.keys(s.storedBy).length === 2,
        30_000,
      );
      expect(status.storedBy).toEqual({ [ASSETS.download]: 'done', [ASSETS.b]: 'done' });
      const asked = siteLog()
        .slice(logAt)
        .flatMap((e) => (e.source === 'token' && e.event.type === 'request' ? [e.event.cid] : []));
      expect(new Set(asked)).toEqual(new Set([ASSETS.download, ASSETS.b]));
      expect(status.errors).toEqual([]);
      expect(new Set(verdictsOn(flow()))).toEqual(new Set(['issued']));
    });
  });

  describe("the app's own envelope around the challenge, and a first token refused with 7011", () => {
    test.each(['shaka', 'hls', 'dash'] as const)(
      'the %s adapter: wrapped once, one fresh token, plays',
      async (player) => {
        const site = session.site.url;
        const { page, flow } = await startFresh(session, player, {
          options: {
            contentId: ASSETS.a,
            tokenUrls: [`${site}/token-expired`, `${site}/token`],
            licenseServer: { 'org.w3.clearkey': session.gate.envelopeUrl },
          },
          app: { envelope: ENVELOPE },
        });
        const status = await expectDecryptedPlayback(page, player);
        expect(status.licenses.filter((l) => l.event === 'sent')).toEqual([
          { event: 'sent', refreshed: false, tokenSource: expect.any(String) },
          { event: 'sent', refreshed: true, tokenSource: 'network' },
        ]);
        // The gate takes one envelope off: a challenge wrapped twice would not be a challenge.
        expect(session.gate.refused).toEqual([]);
        expect(verdictsOn(flow())).toEqual(['denied 7011', 'issued']);
      },
    );
  });

  describe("a license URL that lets only the site's own users through", () => {
    const cases: Array<[PlayerName, string, AdapterSetup['app'], () => string]> = [
      ['hls', 'its cookie', { withCredentials: true }, () => session.gate.cookieUrl],
      ['dash', 'its cookie', { withCredentials: true }, () => session.gate.cookieUrl],
      [
        'hls',
        'an app header',
        { headers: { [GATE_HEADER.name]: GATE_HEADER.value } },
        () => session.gate.headerUrl,
      ],
      [
        'dash',
        'an app header',
        { headers: { [GATE_HEADER.name]: GATE_HEADER.value } },
        () => session.gate.headerUrl,
      ],
      [
        'videojs',
        'an app header',
        { headers: { [GATE_HEADER.name]: GATE_HEADER.value } },
        () => session.gate.headerUrl,
      ],
    ];
    test.each(cases)('the %s adapter sends %s, and plays', async (player, _, app, url) => {
      const refusedBefore = session.gate.refused.length;
      const { page, flow } = await startFresh(session, player, {
        options: {
          contentId: ASSETS.a,
          tokenUrl: `${session.site.url}/token`,
          licenseServer: { 'org.w3.clearkey': url() },
        },
        app,
      });
      await expectDecryptedPlayback(page, player);
      expect(session.gate.refused.slice(refusedBefore)).toEqual([]);
      expect(new Set(verdictsOn(flow()))).toEqual(new Set(['issued']));
    });

    test('without the cookie the gate turns the request away (the door works)', async () => {
      const refusedBefore = session.gate.refused.length;
      const { page } = await startFresh(session, 'hls', {
        options: {
          contentId: ASSETS.a,
          tokenUrl: `${session.site.url}/token`,
          licenseServer: { 'org.w3.clearkey': session.gate.cookieUrl },
        },
      });
      const { error } = await firstAppError(page, 'hls');
      expect(error.auth).toMatchObject({ code: 'LICENSE_REQUEST_FAILED' });
      expect(error.auth?.message).toContain('HTTP 403');
      expect(session.gate.refused.slice(refusedBefore)).toContain('cookie: no cookie');
    });
  });
});
