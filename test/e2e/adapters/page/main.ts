// The adapters' test page: one app per player, each with its @multidrm/player adapter, driven from
// Node through `window.adapters`.
import { attachLicenseAuth as attachToShaka } from '@multidrm/player/shaka';
import { attachLicenseAuth as attachToHls } from '@multidrm/player/hls';
import { attachLicenseAuth as attachToDash } from '@multidrm/player/dash';
import { attachLicenseAuth as attachToVideoJs, type VideoJsPlayer } from '@multidrm/player/videojs';
import {
  findLicenseAuthError,
  LicenseServiceError,
  type EngineEvents,
  type LicenseAuthError,
  type TokenFetcher,
} from '@multidrm/player/hls';
import { dashjs, Hls, shaka, videojs } from '../../../../packages/player/test/players.ts';
import type {
  AdapterHarness,
  AdapterSetup,
  AdapterStatus,
  AppError,
  PageAuthOptions,
  PlayerName,
} from './adapter-api.ts';
import { showFrame, type FrameVideo } from '../../page/show-frame.ts';

// The repository's type check runs without the DOM library, so the page names the browser members
// it uses.
interface VideoElement extends FrameVideo {
  id: string;
  muted: boolean;
  autoplay: boolean;
  readonly readyState: number;
}
interface PageGlobals {
  document: {
    title: string;
    body: { append(node: VideoElement): void };
    createElement(tag: 'video'): VideoElement;
  };
  requestAnimationFrame(callback: () => void): number;
  fetch(
    url: string,
    init: object,
  ): Promise<{ ok: boolean; status: number; text(): Promise<string> }>;
  adapters?: AdapterHarness;
}
const page = globalThis as unknown as PageGlobals;

interface Handle {
  on<K extends keyof EngineEvents>(name: K, listener: (event: EngineEvents[K]) => void): unknown;
}
interface Entry {
  video: VideoElement;
  status: Omit<AdapterStatus, 'currentTime' | 'readyState' | 'videoId'>;
}
const entries = new Map<string, Entry>();

function describe(error: unknown, source: string): AppError {
  const found: LicenseAuthError | null = findLicenseAuthError(error);
  const extra = (found ?? {}) as Record<string, unknown>;
  const pick = (name: string) =>
    typeof extra[name] === 'string' ? { [name]: extra[name] as string } : {};
  let player: string;
  try {
    player = JSON.stringify(error, (key, value: unknown) =>
      key === 'data' && typeof value === 'object' ? '[data]' : value,
    ).slice(0, 300);
  } catch {
    player = String(error);
  }
  return {
    source,
    auth: found && {
      name: found.name,
      code: found.code,
      message: found.message,
      ...pick('errorCode'),
      ...pick('serviceMessage'),
      ...pick('siteErrorCode'),
      ...pick('siteErrorMessage'),
    },
    player,
  };
}

/** `tokenUrls`: the site's endpoints in turn, through the adapter's `getToken` option. */
function authOptions({ tokenUrls, ...options }: PageAuthOptions) {
  if (!tokenUrls) return options;
  let n = 0;
  const getToken: TokenFetcher = async ({ cid, drmType, signal }) => {
    const url = tokenUrls[Math.min(n++, tokenUrls.length - 1)] as string;
    const res = await page.fetch(url, {
      method: 'POST',
      credentials: 'include',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ cid, drm_type: drmType }),
      signal,
    });
    if (!res.ok) throw new Error(`${url} answered HTTP ${res.status}`);
    return res.text();
  };
  return { ...options, getToken };
}

type Start = (
  video: VideoElement,
  setup: AdapterSetup,
  fail: (error: unknown, source: string) => void,
) => Promise<Handle>;

const players: Record<PlayerName, Start> = {
  async shaka(video, { manifestUrl, options }, fail) {
    const player = new shaka.Player();
    await player.attach(video as unknown as Parameters<typeof player.attach>[0]);
    const auth = attachToShaka(player, authOptions(options));
    player.addEventListener('error', (event: unknown) =>
      fail((event as { detail?: unknown }).detail, 'error event'),
    );
    player.load(manifestUrl).catch((error: unknown) => fail(error, 'load()'));
    return auth;
  },
  async hls(video, { manifestUrl, options }, fail) {
    const hls = new Hls();
    const auth = attachToHls(hls, authOptions(options));
    hls.on(Hls.Events.ERROR, (_, data) => {
      // Non-fatal errors are hls.js recovering on its own; a license failure always counts.
      if (data.fatal || findLicenseAuthError(data)) fail(data, `ERROR ${data.details}`);
    });
    hls.loadSource(manifestUrl);
    hls.attachMedia(video as unknown as Parameters<typeof hls.attachMedia>[0]);
    return auth;
  },
  async dash(video, { manifestUrl, options }, fail) {
    const player = dashjs.MediaPlayer().create();
    const auth = attachToDash(player, authOptions(options));
    player.on('error', (event: unknown) => fail(event, 'error event'));
    player.initialize(
      video as unknown as Parameters<typeof player.initialize>[0],
      manifestUrl,
      true,
    );
    return auth;
  },
  async videojs(video, { manifestUrl, options }, fail) {
    // Only the media element: no controls or overlays over the picture the test compares.
    const player = videojs(video as unknown as Parameters<typeof videojs>[0], {
      children: ['mediaLoader'],
      muted: true,
      autoplay: true,
      width: 640,
      height: 360,
    });
    const auth = attachToVideoJs(player as unknown as VideoJsPlayer, authOptions(options));
    player.on('error', () => fail(player.error(), 'player.error()'));
    player.src({ src: manifestUrl, type: 'application/dash+xml', keySystems: auth.keySystems });
    return auth;
  },
};

function entry(id: string): Entry {
  const found = entries.get(id);
  if (found === undefined) throw new Error(`No player "${id}" on the page.`);
  return found;
}

const adapters: AdapterHarness = {
  async start(setup) {
    if (entries.has(setup.id)) throw new Error(`Player "${setup.id}" exists already.`);
    const video = page.document.createElement('video');
    video.id = setup.id;
    video.muted = true;
    video.autoplay = true;
    page.document.body.append(video);
    const e: Entry = { video, status: { errors: [], licenses: [] } };
    entries.set(setup.id, e);
    const fail = (error: unknown, source: string) => e.status.errors.push(describe(error, source));
    const auth = await players[setup.player](video, setup, fail);
    auth.on('licenseRequestSent', ({ refreshed, tokenSource }) =>
      e.status.licenses.push({ event: 'sent', refreshed, tokenSource }),
    );
    auth.on('licenseAnswered', ({ status, error }) => {
      const errorCode = error instanceof LicenseServiceError ? error.errorCode : undefined;
      e.status.licenses.push({ event: 'answered', status, ...(errorCode && { errorCode }) });
    });
  },

  status(id) {
    const { video, status } = entry(id);
    return {
      ...structuredClone(status),
      currentTime: video.currentTime,
      readyState: video.readyState,
      videoId: video.id,
    };
  },

  showFrame: (id, seconds) => showFrame(entry(id).video, seconds),
};

shaka.polyfill.installAll();
page.adapters = adapters;
page.document.title = 'ready';
