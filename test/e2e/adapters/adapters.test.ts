// One table for the four players: each adapter of @multidrm/player, in Chromium with ClearKey,
// against the emulator in the service's dialect and a site built with site-kit. One browser, one
// page build and one stack serve the whole file; the page is loaded anew for each test.
import type { FlowEvent } from '@multidrm/emulator';
import { describe, expect, test } from 'vitest';
import { e2eSkipped, SKIP_NOTICE } from '../support/chromium.ts';
import { DENIED, SAMPLE } from '../support/site.ts';
import { PLAYERS, type AdapterSetup, type PlayerName } from './page/adapter-api.ts';
import {
  manifestOf,
  useAdapterSession,
  type AdapterSession,
  type PlayerPage,
} from './adapter-session.ts';
import { expectDecryptedPlayback, firstAppError } from './playback-proof.ts';

const skip = e2eSkipped();
if (skip) console.warn(SKIP_NOTICE);

type Endpoint = Pick<AdapterSetup['options'], 'tokenUrl' | 'tokenUrls' | 'customDataUrl'>;

/**
 * The player's page, loaded anew, with its player started as an app would start it; `verdicts()`
 * lists the emulator's verdicts on the license requests since.
 */
async function play(
  session: AdapterSession,
  player: PlayerName,
  endpoint: (site: string) => Endpoint,
): Promise<{ page: PlayerPage; verdicts(): string[] }> {
  const { page } = session;
  await page.fresh();
  const flowAt = session.flow.length;
  await page.start({
    id: player,
    player,
    manifestUrl: manifestOf(session, player, 'content'),
    options: {
      contentId: SAMPLE.cid,
      ...endpoint(session.site.url),
      // ClearKey, the key system this browser has: the adapters send drm_type Widevine for it.
      licenseServer: { 'org.w3.clearkey': session.emulator.licenseUrl },
    },
  });
  return { page, verdicts: () => verdictsOn(session.flow.slice(flowAt)) };
}

/** The emulator's verdicts on license requests, in order. */
function verdictsOn(flow: FlowEvent[]): string[] {
  return flow.flatMap((e) =>
    e.type === 'license-denied'
      ? [`denied ${e.errorCode} (HTTP ${e.status})`]
      : e.type === 'license-issued'
        ? ['issued']
        : [],
  );
}

describe.skipIf(skip)('the four adapters in a real browser', () => {
  const session = useAdapterSession();

  describe('decrypted playback with a token from the site', () => {
    test.each(PLAYERS)('the %s adapter plays the encrypted sample', async (player) => {
      const { page, verdicts } = await play(session, player, (site) => ({
        tokenUrl: `${site}/token`,
      }));
      const status = await expectDecryptedPlayback(page, player);
      expect(status.licenses.filter((l) => l.event === 'sent')).toEqual([
        { event: 'sent', refreshed: false, tokenSource: expect.any(String) },
      ]);
      expect(verdicts()).toEqual(['issued']);
    });
  });

  describe('a first token refused with 7011 (expired)', () => {
    test.each(PLAYERS)(
      'the %s adapter fetches one fresh token, sends again, and the content plays',
      async (player) => {
        // The site's first token is 5 minutes old (past the emulator's 60 s window), the next is fresh.
        const { page, verdicts } = await play(session, player, (site) => ({
          tokenUrls: [`${site}/token-expired`, `${site}/token`],
        }));
        const status = await expectDecryptedPlayback(page, player);
        expect(status.licenses).toEqual([
          // The first token was prefetched while the manifest loaded.
          { event: 'sent', refreshed: false, tokenSource: expect.any(String) },
          { event: 'answered', status: 200, errorCode: '7011' },
          { event: 'sent', refreshed: true, tokenSource: 'network' },
          { event: 'answered', status: 200 },
        ]);
        expect(verdicts()).toEqual(['denied 7011 (HTTP 200)', 'issued']);
      },
    );
  });

  describe("a refusal of the site's gateway (8002)", () => {
    test.each(PLAYERS)(
      "the %s adapter hands the app a LicenseServiceError naming the site's code",
      async (player) => {
        const { page, verdicts } = await play(session, player, (site) => ({
          customDataUrl: `${site}/custom-data-lapsed`,
        }));
        const { error, status } = await firstAppError(page, player);
        expect(error.auth, JSON.stringify(error)).toMatchObject({
          name: 'LicenseServiceError',
          code: 'LICENSE_SERVICE_ERROR',
          errorCode: '8002',
          siteErrorCode: DENIED.code,
          siteErrorMessage: DENIED.message,
        });
        expect(error.auth?.message).toContain(`site code ${DENIED.code} "${DENIED.message}"`);
        expect(status.currentTime).toBe(0);
        // Not a refusal a fresh token fixes: no request goes again with a fresh token (hls.js asks
        // again for the audio track's key on its own, and gets the same verdict).
        const sent = status.licenses.filter((l) => l.event === 'sent');
        expect(sent.length).toBeGreaterThan(0);
        expect(sent.every((l) => !l.refreshed)).toBe(true);
        const answered = status.licenses.filter((l) => l.event === 'answered');
        expect(new Set(answered.map((l) => l.errorCode))).toEqual(new Set(['8002']));
        expect(new Set(verdicts())).toEqual(new Set(['denied 8002 (HTTP 200)']));
      },
    );
  });
});
