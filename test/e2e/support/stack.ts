import { createServer } from 'node:http';
import { fileURLToPath } from 'node:url';
import {
  startEmulator,
  type EmulatorConfigInput,
  type FlowEvent,
  type RunningEmulator,
} from '@multidrm/emulator';
import { buildTestPage, type BuiltPage } from './page-build.ts';
import { DOWN_SITE, SAMPLE, SITE, startSite, XML_SITE, type RunningSite } from './site.ts';
import { closeServer, listen, startStaticServer, type StaticServer } from './static-server.ts';
import { makeTwoPeriodContent, SECOND_PERIOD_KID } from './two-period.ts';

/** The token window of the stack's second emulator. */
export const SHORT_WINDOW_SECONDS = 3;

const CONTENT_DIR = fileURLToPath(new URL('../../fixtures/content/', import.meta.url));

/** Everything a browser test talks to, all on 127.0.0.1 with ephemeral ports. */
export interface Stack {
  /** The test page (built with vite) and the sample content share this origin. */
  pageUrl: string;
  manifestUrl: string;
  /**
   * The sample twice in a row as two periods whose key IDs differ, with no init data in the
   * manifest: the second license request leaves in the middle of playback (`two-period.ts`).
   */
  twoPeriodManifestUrl: string;
  /** The emulator's license URL: the service's path, `/ri/licenseManager.do`. */
  licenseUrl: string;
  /**
   * A second emulator, the same but for a token window of SHORT_WINDOW_SECONDS: a token the player
   * fetched at the start has expired by the time a later license request leaves.
   */
  shortWindowLicenseUrl: string;
  /** Every flow event of the second emulator, in order. */
  shortWindowFlow: FlowEvent[];
  site: RunningSite;
  emulator: RunningEmulator;
  /** Every flow event of the emulator, in order. */
  flow: FlowEvent[];
  /** Serves the page and the content; its `latencyMs` plays a CDN's round trip. */
  statics: StaticServer;
  /** Closes every server and removes the built page, even when one of them fails to close. */
  close(): Promise<void>;
}

/** An address where nothing listens: a port just taken from the system and given back. */
async function deadUrl(): Promise<string> {
  const server = createServer();
  const url = await listen(server);
  await closeServer(server);
  return `${url}/gateway`;
}

export async function startStack(): Promise<Stack> {
  const closers: Array<() => Promise<void>> = [];
  const close = async () => {
    const results = await Promise.allSettled(closers.reverse().map((c) => c()));
    const failed = results.find((r) => r.status === 'rejected');
    if (failed) throw (failed as PromiseRejectedResult).reason;
  };
  try {
    const page: BuiltPage = await buildTestPage();
    closers.push(page.remove);
    const twoPeriods = await makeTwoPeriodContent(CONTENT_DIR, SAMPLE.kid);
    closers.push(twoPeriods.remove);
    const statics: StaticServer = await startStaticServer({
      '/content/': CONTENT_DIR,
      '/content-two-periods/': twoPeriods.dir,
      '/': page.dir,
    });
    closers.push(statics.close);
    const site = await startSite({ playerOrigin: statics.origin });
    closers.push(site.close);
    const config: EmulatorConfigInput = {
      sites: [
        { ...SITE, gatewayUrl: `${site.url}/gateway/json`, gatewayFormat: 'json' },
        { ...XML_SITE, gatewayUrl: `${site.url}/gateway/xml`, gatewayFormat: 'xml' },
        { ...DOWN_SITE, gatewayUrl: await deadUrl() },
      ],
      keys: {
        [SAMPLE.cid]: [
          { kid: SAMPLE.kid, key: SAMPLE.key },
          { kid: SECOND_PERIOD_KID, key: SAMPLE.key },
        ],
      },
      allowedOrigins: [statics.origin],
    };
    const emulator = await startEmulator(config);
    closers.push(emulator.close);
    const shortWindow = await startEmulator({
      ...config,
      tokenValiditySeconds: SHORT_WINDOW_SECONDS,
    });
    closers.push(shortWindow.close);
    const shortWindowFlow: FlowEvent[] = [];
    shortWindow.events.on((event) => shortWindowFlow.push(event));
    const flow: FlowEvent[] = [];
    emulator.events.on((event) => flow.push(event));
    return {
      pageUrl: `${statics.origin}/`,
      manifestUrl: `${statics.origin}/content/manifest.mpd`,
      twoPeriodManifestUrl: `${statics.origin}/content-two-periods/manifest.mpd`,
      licenseUrl: emulator.licenseUrl,
      shortWindowLicenseUrl: shortWindow.licenseUrl,
      shortWindowFlow,
      site,
      emulator,
      flow,
      statics,
      close,
    };
  } catch (error) {
    await close().catch(() => undefined);
    throw error;
  }
}
