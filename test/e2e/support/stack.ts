import { createServer } from 'node:http';
import { fileURLToPath } from 'node:url';
import { startEmulator, type FlowEvent, type RunningEmulator } from '@multidrm/emulator';
import { buildTestPage, type BuiltPage } from './page-build.ts';
import { DOWN_SITE, SAMPLE, SITE, startSite, XML_SITE, type RunningSite } from './site.ts';
import { closeServer, listen, startStaticServer, type StaticServer } from './static-server.ts';

const CONTENT_DIR = fileURLToPath(new URL('../../fixtures/content/', import.meta.url));

/** Everything a browser test talks to, all on 127.0.0.1 with ephemeral ports. */
export interface Stack {
  /** The test page (built with vite) and the sample content share this origin. */
  pageUrl: string;
  manifestUrl: string;
  /** The emulator's license URL. */
  licenseUrl: string;
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
    const statics: StaticServer = await startStaticServer({
      '/content/': CONTENT_DIR,
      '/': page.dir,
    });
    closers.push(statics.close);
    const site = await startSite({ playerOrigin: statics.origin });
    closers.push(site.close);
    const emulator = await startEmulator({
      sites: [
        { ...SITE, gatewayUrl: `${site.url}/gateway/json`, gatewayFormat: 'json' },
        { ...XML_SITE, gatewayUrl: `${site.url}/gateway/xml`, gatewayFormat: 'xml' },
        { ...DOWN_SITE, gatewayUrl: await deadUrl() },
      ],
      keys: { [SAMPLE.cid]: { kid: SAMPLE.kid, key: SAMPLE.key } },
      allowedOrigins: [statics.origin],
    });
    closers.push(emulator.close);
    const flow: FlowEvent[] = [];
    emulator.events.on((event) => flow.push(event));
    return {
      pageUrl: `${statics.origin}/`,
      manifestUrl: `${statics.origin}/content/manifest.mpd`,
      licenseUrl: `${emulator.url}/license`,
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
