// License renewal on the four players, in Chromium with ClearKey against the emulator's stream
// count: each adapter's `renewal` option renews every license of a load at the interval, with a
// fresh token each time; the user's third concurrent stream is refused (6003); a stopped player
// stops renewing and its slot frees after the interval plus the emulator's grace.
import { setTimeout as sleep } from 'node:timers/promises';
import type { FlowEvent } from '@multidrm/emulator';
import { describe, expect, test } from 'vitest';
import { e2eSkipped, SKIP_NOTICE } from '../support/chromium.ts';
import { SAMPLE, SIGNED_IN_USER, STREAM_LIMIT } from '../support/site.ts';
import { PLAYERS, type AdapterStatus } from './page/adapter-api.ts';
import { manifestOf, useAdapterSession } from './adapter-session.ts';

const skip = e2eSkipped();
if (skip) console.warn(SKIP_NOTICE);

/** The emulator's grace after a stream's renewal interval (its default is 30 s). */
const GRACE_SECONDS = 1;
const INTERVAL_SEC = STREAM_LIMIT.renewalSeconds;
const RENEWALS = 5;

type Issued = Extract<FlowEvent, { type: 'license-issued' }>;

describe.skipIf(skip)('license renewal on the four players', () => {
  const session = useAdapterSession({ streamGraceSeconds: GRACE_SECONDS });

  test.each(PLAYERS)(
    'the %s adapter renews at the interval with fresh tokens; the third stream is refused with 6003; a stopped stream frees its slot',
    async (player) => {
      const { page } = session;
      await page.fresh();
      // A user of this test's own: streams of the other players' tests do not count against it.
      const viewer = `${SIGNED_IN_USER}-${player}`;
      const issued = () =>
        session.flow.filter((e): e is Issued => e.type === 'license-issued' && e.userId === viewer);
      // Tokens the site issued to this viewer.
      const tokensIssued = () =>
        session.site.log.filter(
          (l) =>
            l.path === '/token-streams' &&
            l.event.type === 'decision' &&
            l.event.allow &&
            l.event.user_id === viewer,
        ).length;
      const start = (id: string) =>
        page.start({
          id,
          player,
          manifestUrl: manifestOf(session, player, 'content'),
          options: {
            contentId: SAMPLE.cid,
            tokenUrl: `${session.site.url}/token-streams?viewer=${player}`,
            licenseServer: { 'org.w3.clearkey': session.emulator.licenseUrl },
            renewal: { intervalSec: INTERVAL_SEC },
          },
        });

      // Two streams: the limit. B starts once A has its license: the first stream ID is A's (B
      // renews as often as A, so a count would not tell them apart).
      await start('a');
      await page.waitFor('a', 'A licensed', (s) => issued().length > 0 || s.errors.length > 0);
      const aStream = issued()[0]?.stream.id;
      expect(aStream).toBeTypeOf('string');
      await start('b');
      const a = await page.waitFor(
        'a',
        `${RENEWALS} renewals`,
        (s) => s.renewals.renewed >= RENEWALS || s.errors.length > 0,
        20_000,
      );
      expect(a.errors).toEqual([]);
      expect(a.renewals.failed).toEqual([]);
      // Each renewal went out with a token fetched for it, none from the cache.
      expect(a.renewals.sent.length).toBeGreaterThanOrEqual(RENEWALS);
      expect(new Set(a.renewals.sent)).toEqual(new Set(['network']));
      const b = await page.waitFor(
        'b',
        'B playing',
        (s) => s.currentTime > 1 || s.errors.length > 0,
      );
      expect(b.errors).toEqual([]);

      // The emulator saw A's stream renewed under one stream ID, from the same user, each time with a
      // token the site had just issued.
      const streamIds = [...new Set(issued().map((e) => e.stream.id))];
      expect(streamIds).toHaveLength(2);
      const aIssued = issued().filter((e) => e.stream.id === aStream);
      expect(aIssued.slice(1).every((e) => e.stream.renewal)).toBe(true);
      expect(tokensIssued()).toBeGreaterThanOrEqual(issued().length);

      // Playback went on across the renewals: no stall, time advanced.
      const later = await page.waitFor(
        'a',
        'A past 5 s',
        (s) => s.currentTime > 5 || s.errors.length > 0,
      );
      expectSmooth(later);

      // The third stream of the user is refused, and the app hears why.
      await start('c');
      const c = await page.waitFor('c', 'an error', (s) => s.errors.length > 0);
      expect(c.errors[0]?.auth).toMatchObject({
        name: 'LicenseServiceError',
        errorCode: '6003',
        limit: 'streams',
      });
      expect(c.currentTime).toBe(0);

      // The app stops A: its stream stops renewing, and after the interval plus the grace a new
      // stream of the user plays.
      await page.stop('a');
      const aCount = issued().filter((e) => e.stream.id === aStream).length;
      await sleep((INTERVAL_SEC + GRACE_SECONDS + 1) * 1000);
      expect(issued().filter((e) => e.stream.id === aStream)).toHaveLength(aCount);
      await start('d');
      const d = await page.waitFor(
        'd',
        'D playing',
        (s) => s.currentTime > 1 || s.errors.length > 0,
      );
      expect(d.errors).toEqual([]);
      expect(page.pageErrors).toEqual([]);
    },
  );

  test.each(PLAYERS)(
    'the %s adapter: a renewal refused with 8711 reaches the app through its player as a LicenseServiceError naming the period, and the load stops',
    async (player) => {
      const { page } = session;
      await page.fresh();
      await page.start({
        id: 'r',
        player,
        manifestUrl: manifestOf(session, player, 'content'),
        options: {
          contentId: SAMPLE.cid,
          tokenUrl: `${session.site.url}/token-streams?viewer=${player}-refused`,
          licenseServer: { 'org.w3.clearkey': session.emulator.licenseUrl },
          renewal: { intervalSec: INTERVAL_SEC },
        },
      });
      const playing = await page.waitFor(
        'r',
        'playing',
        (s) => s.currentTime > 1 || s.errors.length > 0,
      );
      expect(playing.errors).toEqual([]);
      // The service's verdict on the next renewal: the playback period is over.
      session.emulator.faults.set([{ fault: 'renewal-refused', times: 1 }]);
      let refused: AdapterStatus;
      try {
        refused = await page.waitFor('r', 'an error', (s) => s.errors.length > 0);
      } finally {
        session.emulator.faults.clear();
      }
      expect(refused.errors[0]?.auth).toMatchObject({
        name: 'LicenseServiceError',
        errorCode: '8711',
        limit: 'playback-period',
      });
      expect(refused.renewals.failed).toHaveLength(1);
      // Stopped: no more renewals, and the picture does not go on.
      await sleep((INTERVAL_SEC + 1) * 1000);
      const after = await page.status('r');
      expect(after.renewals.sent).toHaveLength(refused.renewals.sent.length);
      expect(after.paused).toBe(true);
      expect(after.currentTime).toBeLessThanOrEqual(refused.currentTime);
      expect(page.pageErrors).toEqual([]);
    },
  );
});

function expectSmooth(status: AdapterStatus): void {
  expect(status.errors).toEqual([]);
  expect(status.stalls).toBe(0);
  expect(status.currentTime).toBeGreaterThan(5);
}
