import { fileURLToPath } from 'node:url';
import {
  startEmulator,
  type EmulatorConfigInput,
  type FlowEvent,
  type RunningEmulator,
} from '@multidrm/emulator';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { makeRekeyedContent } from '../../content/rekeyed-content.ts';
import { findChromium, launchChromium, type LaunchedChromium } from '../support/chromium.ts';
import { buildTestPage } from '../support/page-build.ts';
import { pollStatus } from '../support/session.ts';
import { shownFrame, type ShownFrame } from '../support/frame-check.ts';
import { GATE_COOKIE, startLicenseGate, type LicenseGate } from '../support/license-gate.ts';
import { SAMPLE, SIGNED_IN_USER, SITE, startSite, type RunningSite } from '../support/site.ts';
import { startStaticServer, type StaticServer } from '../support/static-server.ts';
import type {
  AdapterHarness,
  AdapterSetup,
  AdapterStatus,
  NextAsset,
  PlayerAction,
  PlayerName,
  ShakaStep,
} from './page/adapter-api.ts';

const PAGE_DIR = fileURLToPath(new URL('./page/', import.meta.url));
const CONTENT_DIR = fileURLToPath(new URL('../../fixtures/content/', import.meta.url));

/**
 * The emulator's token window in these tests: the site's stale token (5 minutes old) is expired
 * against it, as against a site that configured a window shorter than the service's 600 s default.
 */
export const TOKEN_WINDOW_SECONDS = 60;

/**
 * Further assets of a playlist: the sample's segments under other cids and other manifest URLs
 * (`/content-<name>/`). B names its own key ID ({@link B_KID}): a player that kept A's key could
 * otherwise play B on it and never ask B's license. The download is A's content (Shaka's Storage
 * has media keys of its own, so it asks its license whatever the player holds).
 */
export const ASSETS = {
  a: SAMPLE.cid,
  b: 'multidrm-sample-episode-2',
  download: 'multidrm-sample-download',
} as const;

/** B's key ID; its content key is the sample's (the same media, see test/content/rekeyed-content.ts). */
export const B_KID = 'b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0';

/** The test page, loaded anew for each test. */
export interface PlayerPage {
  page: Page;
  /** Uncaught exceptions of the page since the last `fresh()`. */
  pageErrors: string[];
  /** Loads the test page anew: no player, no state left from the previous test. */
  fresh(): Promise<void>;
  start(setup: AdapterSetup): Promise<void>;
  status(id: string): Promise<AdapterStatus>;
  next(id: string, asset: NextAsset): Promise<void>;
  store(id: string, asset: NextAsset): Promise<void>;
  act(id: string, action: PlayerAction): Promise<void>;
  shaka(id: string, step: ShakaStep): Promise<void>;
  stop(id: string): Promise<void>;
  /** Polls the player until `done` holds; fails with the last status after `timeoutMs`. */
  waitFor(
    id: string,
    what: string,
    done: (status: AdapterStatus) => boolean,
    timeoutMs?: number,
  ): Promise<AdapterStatus>;
  /** Pauses at `seconds`, then screenshots the <video> element. */
  frameAt(id: string, seconds: number): Promise<ShownFrame>;
}

/** One browser and page, the site, the emulator and the content for a whole test file. */
export interface AdapterSession {
  site: RunningSite;
  emulator: RunningEmulator;
  /** The site's own door in front of the emulator: cookie, app header, app envelope. */
  gate: LicenseGate;
  /** Serves the page and the content; its `latencyMs` plays a slow CDN. */
  statics: StaticServer;
  /** Every flow event of the emulator, in order. */
  flow: FlowEvent[];
  /** Origin of the test page and the committed sample content (under /content/). */
  origin: string;
  page: PlayerPage;
  close(): Promise<void>;
}

// Page functions run in the browser, where globalThis is the window holding the harness.
type PageWindow = { adapters: AdapterHarness; document: { title: string } };

/** What a test file changes of the emulator's configuration (a short stream grace, more cids). */
export type EmulatorOverrides = Partial<Pick<EmulatorConfigInput, 'streamGraceSeconds' | 'keys'>>;

export async function openAdapterSession({
  keys: moreKeys,
  ...overrides
}: EmulatorOverrides = {}): Promise<AdapterSession> {
  // Before anything is started: a missing browser fails with its own message, at once.
  findChromium();
  const closers: Array<() => Promise<unknown>> = [];
  const close = async () => {
    await Promise.allSettled(closers.reverse().map((c) => c()));
  };
  try {
    // The page build and the browser launch overlap; whichever came up is closed on a failure.
    const [built, launched] = await Promise.allSettled([buildTestPage(PAGE_DIR), launchChromium()]);
    if (built.status === 'fulfilled') closers.push(built.value.remove);
    if (launched.status === 'fulfilled') closers.push(launched.value.close);
    if (built.status === 'rejected') throw built.reason;
    if (launched.status === 'rejected') throw launched.reason;
    const browser: LaunchedChromium = launched.value;
    const contentB = await makeRekeyedContent(CONTENT_DIR, SAMPLE.kid, B_KID);
    closers.push(contentB.remove);
    const statics: StaticServer = await startStaticServer({
      '/content/': CONTENT_DIR,
      '/content-b/': contentB.dir,
      '/content-download/': CONTENT_DIR,
      '/': built.value.dir,
    });
    closers.push(statics.close);
    const site = await startSite({ playerOrigin: statics.origin });
    closers.push(site.close);
    const emulator = await startEmulator({
      sites: [{ ...SITE, gatewayUrl: `${site.url}/gateway/json`, gatewayFormat: 'json' }],
      keys: {
        [ASSETS.a]: { kid: SAMPLE.kid, key: SAMPLE.key },
        [ASSETS.b]: { kid: B_KID, key: SAMPLE.key },
        [ASSETS.download]: { kid: SAMPLE.kid, key: SAMPLE.key },
        ...moreKeys,
      },
      allowedOrigins: [statics.origin],
      tokenValiditySeconds: TOKEN_WINDOW_SECONDS,
      ...overrides,
    });
    closers.push(emulator.close);
    const flow: FlowEvent[] = [];
    emulator.events.on((event) => flow.push(event));
    const gate = await startLicenseGate(emulator.licenseUrl, statics.origin, 'x-drm-custom-data');
    closers.push(gate.close);

    // The site knows the user by a cookie; it goes with the players' credentialed token requests.
    await browser.context.addCookies([
      { name: 'user', value: SIGNED_IN_USER, url: site.url, sameSite: 'Lax' },
      { ...GATE_COOKIE, url: gate.cookieUrl, sameSite: 'Lax' },
    ]);
    const page = browser.context.pages()[0] ?? (await browser.context.newPage());
    return {
      site,
      emulator,
      gate,
      statics,
      flow,
      origin: statics.origin,
      page: playerPage(page, statics.origin),
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}

function playerPage(page: Page, origin: string): PlayerPage {
  page.setDefaultTimeout(20_000);
  const pageErrors: string[] = [];
  page.on('pageerror', (error) => pageErrors.push(`${error.name}: ${error.message}`));
  const status = (id: string) =>
    page.evaluate((i) => (globalThis as unknown as PageWindow).adapters.status(i), id);
  return {
    page,
    pageErrors,
    async fresh() {
      pageErrors.length = 0;
      await page.goto(`${origin}/`);
      await page.waitForFunction(
        () => (globalThis as unknown as PageWindow).document.title === 'ready',
        null,
        { timeout: 10_000 },
      );
    },
    start: (setup) =>
      page.evaluate((s) => (globalThis as unknown as PageWindow).adapters.start(s), setup),
    status,
    next: (id, asset) =>
      page.evaluate(([i, a]) => (globalThis as unknown as PageWindow).adapters.next(i, a), [
        id,
        asset,
      ] as const),
    store: (id, asset) =>
      page.evaluate(([i, a]) => (globalThis as unknown as PageWindow).adapters.store(i, a), [
        id,
        asset,
      ] as const),
    act: (id, action) =>
      page.evaluate(([i, a]) => (globalThis as unknown as PageWindow).adapters.act(i, a), [
        id,
        action,
      ] as const),
    shaka: (id, step) =>
      page.evaluate(([i, s]) => (globalThis as unknown as PageWindow).adapters.shaka(i, s), [
        id,
        step,
      ] as const),
    stop: (id) => page.evaluate((i) => (globalThis as unknown as PageWindow).adapters.stop(i), id),
    waitFor: (id, what, done, timeoutMs) => pollStatus(status, id, what, done, timeoutMs),
    async frameAt(id, seconds) {
      const { videoId } = await status(id);
      return shownFrame(
        () =>
          page.evaluate(
            ([i, s]) => (globalThis as unknown as PageWindow).adapters.showFrame(i, s),
            [id, seconds] as const,
          ),
        page.locator(`[id="${videoId}"]`),
        seconds,
      );
    },
  };
}

/**
 * One session for the test file. When the session cannot open
 * (no Chromium), every test fails with that reason, rather than being reported as skipped.
 */
export function useAdapterSession(overrides?: EmulatorOverrides): AdapterSession {
  let session: AdapterSession | undefined;
  let failure: unknown;
  beforeAll(async () => {
    try {
      session = await openAdapterSession(overrides);
    } catch (error) {
      failure = error;
    }
  });
  afterAll(async () => {
    await session?.close();
  });
  beforeEach(() => {
    if (session === undefined) throw failure;
  });
  return new Proxy({} as AdapterSession, {
    get: (_, name) => {
      if (session === undefined) throw new Error('The session is used before beforeAll ran.');
      return Reflect.get(session, name);
    },
  });
}

/** The manifest of each player, under an asset's path. */
export const MANIFEST: Record<PlayerName, string> = {
  shaka: 'manifest.mpd',
  hls: 'master.m3u8',
  // ClearKey signalled the DASH-IF way: dash.js 5.2 mishandles the common PSSH for ClearKey.
  dash: 'manifest-clearkey.mpd',
  videojs: 'manifest.mpd',
};
export const manifestOf = (session: AdapterSession, player: PlayerName, dir: string): string =>
  `${session.origin}/${dir}/${MANIFEST[player]}`;

/**
 * A fresh page playing `player` (its id) from the content folder, with what the emulator and the
 * site see from then on.
 */
export async function startFresh(
  session: AdapterSession,
  player: PlayerName,
  setup: Omit<AdapterSetup, 'id' | 'player' | 'manifestUrl'>,
) {
  const { page } = session;
  await page.fresh();
  const flowAt = session.flow.length;
  const logAt = session.site.log.length;
  await page.start({
    id: player,
    player,
    manifestUrl: manifestOf(session, player, 'content'),
    ...setup,
  });
  return {
    page,
    flow: () => session.flow.slice(flowAt),
    siteLog: () => session.site.log.slice(logAt),
  };
}
