// The players' own primitives that change what a player holds, in Chromium with ClearKey against
// the emulator: dash.js with CMCD (query and header mode), dash.js reset() then initialize() of
// another asset, hls.js detachMedia()/attachMedia() and transferMedia() while a token is on its way,
// video.js src() of another asset while the source left still raises `encrypted`.
import type { FlowEvent } from '@multidrm/emulator';
import { describe, expect, test } from 'vitest';
import { e2eSkipped, SKIP_NOTICE } from '../support/chromium.ts';
import { ASSETS, B_KID, manifestOf, startFresh, useAdapterSession } from './adapter-session.ts';
import { expectDecryptedPlayback } from './playback-proof.ts';
import type { NextAsset, PlayerAction } from './page/adapter-api.ts';

const skip = e2eSkipped();
if (skip) console.warn(SKIP_NOTICE);

/** The cid of each license the emulator issued (read from the token the request carried). */
const issuedCids = (flow: FlowEvent[]) =>
  flow.flatMap((e) => (e.type === 'license-issued' ? [e.cid] : []));
const deniedCodes = (flow: FlowEvent[]) =>
  flow.flatMap((e) => (e.type === 'license-denied' ? [e.errorCode] : []));

describe.skipIf(skip)("the players' own primitives", () => {
  const session = useAdapterSession();
  const licenseServer = () => ({ 'org.w3.clearkey': session.emulator.licenseUrl });

  // dash.js adds CMCD to the license request after the filters ran: in query mode to the URL the
  // handle set (its answer), in header mode as headers.
  test.each(['query', 'headers'] as const)(
    'dash.js with CMCD in %s mode: plays, and the license went with the token',
    async (mode) => {
      const requests: Array<{ url: string; headers: Record<string, string> }> = [];
      const onRequest = (r: { url(): string; headers(): Record<string, string> }) =>
        requests.push({ url: r.url(), headers: r.headers() });
      session.page.page.on('request', onRequest);
      try {
        await cmcdPlays(mode, requests);
      } finally {
        session.page.page.off('request', onRequest);
      }
    },
  );

  async function cmcdPlays(
    mode: 'query' | 'headers',
    requests: Array<{ url: string; headers: Record<string, string> }>,
  ) {
    const { page, flow } = await startFresh(session, 'dash', {
      options: {
        contentId: ASSETS.a,
        tokenUrl: `${session.site.url}/token`,
        licenseServer: licenseServer(),
      },
      app: { cmcd: mode },
    });
    const status = await expectDecryptedPlayback(page, 'dash');
    expect(status.sentCids).toEqual([ASSETS.a]);
    expect(issuedCids(flow())).toEqual([ASSETS.a]);
    // CMCD was on: dash.js sent it with the manifest and the segments too.
    const cmcd = requests.filter((r) =>
      mode === 'query' ? r.url.includes('CMCD=') : r.headers['cmcd-request'] !== undefined,
    );
    expect(cmcd.length).toBeGreaterThan(0);
  }

  /**
   * A plays decrypted; `action` moves the player to B its own way: B plays decrypted, the license
   * requests went with A's cid then B's, and the emulator read them from the tokens and issued B's
   * own key, with no refusal.
   */
  async function aThenB(
    player: 'dash' | 'videojs',
    action: (b: NextAsset) => PlayerAction,
  ): Promise<void> {
    const { page, flow } = await startFresh(session, player, {
      options: {
        name: ASSETS.a,
        tokenUrl: `${session.site.url}/token`,
        licenseServer: licenseServer(),
      },
    });
    await expectDecryptedPlayback(page, player);
    await page.act(
      player,
      action({ cid: ASSETS.b, manifestUrl: manifestOf(session, player, 'content-b') }),
    );
    await page.waitFor(player, "B's license", (s) => s.sentCids.includes(ASSETS.b), 20_000);
    const status = await expectDecryptedPlayback(page, player);
    expect(status.sentCids).toEqual([ASSETS.a, ASSETS.b]);
    expect(issuedCids(flow())).toEqual([ASSETS.a, ASSETS.b]);
    expect(deniedCodes(flow())).toEqual([]);
    expect(
      flow().flatMap((e) => (e.type === 'license-issued' && e.cid === ASSETS.b ? e.kids : [])),
    ).toEqual([B_KID]);
  }

  test("dash.js reset(), then initialize() of B: B plays with B's token", () =>
    aThenB('dash', (asset) => ({ type: 'reset', asset })));

  // Chromium raises `encrypted` for an append of the source left after src() changed the player's
  // source and before the tech took it: the plugin answered it with B's options, which have no
  // content types yet, and Chromium 156 refuses those (the app heard "Unsupported keySystem").
  test("video.js src() of B while A's append still raises encrypted: B plays, A's event goes no further", () =>
    aThenB('videojs', (asset) => ({ type: 'src-then-stale-encrypted', asset })));

  // The site holds A's token for 3 s; the media asked for its key; the app moves the media
  // meanwhile. hls.js keeps the source and its key sessions: the token comes, the license goes
  // out with it, and playback goes on once the media is back.
  test.each(['detach-attach', 'transfer'] as const)(
    'hls.js %s while the token is on its way: the request settles, and playback goes on',
    async (type) => {
      const { page, flow, siteLog } = await startFresh(session, 'hls', {
        options: {
          contentId: ASSETS.a,
          tokenUrl: `${session.site.url}/token?delay=3000`,
          licenseServer: licenseServer(),
        },
      });
      const held = () =>
        siteLog().some((e) => e.source === 'connection' && e.event.type === 'held');
      await expect.poll(held, { timeout: 15_000 }).toBe(true);
      await page.waitFor('hls', 'the encrypted event', (s) => s.encrypted);
      expect((await page.status('hls')).sentCids).toEqual([]);
      await page.act('hls', { type });
      const status = await expectDecryptedPlayback(page, 'hls');
      expect(new Set(status.sentCids)).toEqual(new Set([ASSETS.a]));
      expect(new Set(issuedCids(flow()))).toEqual(new Set([ASSETS.a]));
      // The token request was not dropped.
      expect(
        siteLog().some((e) => e.source === 'connection' && e.event.type === 'client-gone'),
      ).toBe(false);
    },
  );
});
