// A page of a site's own test suite: msw/browser with @multidrm/emulator/msw answers the license
// requests (and the site's token endpoint) from a service worker, and the real player plays.
import { licenseServiceHandlers, siteHandlers } from '@multidrm/emulator/msw';
import { attachLicenseAuth, findLicenseAuthError } from '@multidrm/player';
import { setupWorker } from 'msw/browser';
import shakaModule from 'shaka-player';
import type Shaka from 'shaka-player';
import type { KitError, KitPage, KitStatus } from './kit-api.ts';
import { showFrame, type FrameVideo } from '../../page/show-frame.ts';

const shaka = shakaModule as unknown as typeof Shaka.default;

// The repository's type check runs without the DOM library: the page names the members it uses.
type VideoElement = FrameVideo;
interface PageGlobals {
  document: { title: string; getElementById(id: 'video'): VideoElement };
  navigator: { serviceWorker: { controller: unknown } };
  requestAnimationFrame(callback: () => void): number;
  kit?: KitPage;
}
const page = globalThis as unknown as PageGlobals;
const video = page.document.getElementById('video');

const status: Omit<KitStatus, 'currentTime' | 'controlled'> = {
  errors: [],
  flow: [],
  credentialsAsked: 0,
};

function describe(error: unknown): KitError {
  const found = findLicenseAuthError(error) as
    (Error & { code?: string; errorCode?: string; siteErrorCode?: string }) | null;
  const code = (error as { code?: unknown } | null)?.code;
  return {
    shakaCode: typeof code === 'number' ? code : undefined,
    name: found?.name,
    errorCode: found?.errorCode,
    siteErrorCode: found?.siteErrorCode,
    message: found?.message,
  };
}

const kit: KitPage = {
  async start(setup) {
    const service = licenseServiceHandlers(setup.config, { faults: setup.faults ?? [] });
    service.events.on((event) => {
      status.flow.push({
        type: event.type,
        ...(event.type === 'license-denied' ? { errorCode: event.errorCode } : {}),
        ...(event.type === 'fault-injected' ? { fault: event.fault } : {}),
      });
    });
    const site = siteHandlers({
      site: setup.site,
      onEvent: (event) => {
        if (event.type === 'request') status.credentialsAsked += 1;
      },
    });
    const worker = setupWorker(...service, ...site);
    await worker.start({
      serviceWorker: { url: './mockServiceWorker.js' },
      onUnhandledFrame: 'bypass',
      quiet: true,
    });

    const player = new shaka.Player();
    await player.attach(video as unknown as Parameters<typeof player.attach>[0]);
    attachLicenseAuth(player, {
      contentId: setup.contentId,
      ...(setup.mode === 'token'
        ? { tokenUrl: site.tokenUrl }
        : { customDataUrl: site.customDataUrl }),
      licenseServer: { 'org.w3.clearkey': service.licenseUrl },
      header: service.config.customDataHeader,
    });
    player.addEventListener('error', (event: unknown) => {
      status.errors.push(describe((event as { detail: unknown }).detail));
    });
    player.load(setup.manifestUrl).catch((error: unknown) => status.errors.push(describe(error)));
    return { licenseUrl: service.licenseUrl };
  },

  status() {
    return {
      ...structuredClone(status),
      currentTime: video.currentTime,
      controlled: page.navigator.serviceWorker.controller !== null,
    };
  },

  showFrame: (seconds) => showFrame(video, seconds),
};

shaka.polyfill.installAll();
page.kit = kit;
page.document.title = 'ready';
