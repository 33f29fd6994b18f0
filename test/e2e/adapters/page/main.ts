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
  NextAsset,
  PageAuthOptions,
  PlayerAction,
  PlayerName,
  ShakaStep,
} from './adapter-api.ts';
import { showFrame, type FrameVideo } from '../../page/show-frame.ts';

// The repository's type check runs without the DOM library, so the page names the browser members
// it uses.
interface VideoElement extends FrameVideo {
  id: string;
  muted: boolean;
  autoplay: boolean;
  readonly readyState: number;
  readonly paused: boolean;
  addEventListener(
    type: string,
    listener: (event?: { initData?: ArrayBuffer | null }) => void,
    options?: { once: true },
  ): void;
  dispatchEvent(event: object): boolean;
}
/** What the app's hls.js hook uses of the XHR. */
interface AppXhr {
  open(method: string, url: string, async: boolean): void;
  setRequestHeader(name: string, value: string): void;
  withCredentials: boolean;
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
  MediaEncryptedEvent: new (
    type: 'encrypted',
    init: { initDataType: string; initData: ArrayBuffer | null },
  ) => object;
}
const page = globalThis as unknown as PageGlobals;

interface Handle {
  on<K extends keyof EngineEvents>(name: K, listener: (event: EngineEvents[K]) => void): unknown;
}
/** A player on the page: its handle, and the app's way to play the next asset on it. */
interface Started {
  auth: Handle;
  next(asset: NextAsset): void;
  store?(asset: NextAsset): Promise<unknown>;
  act?(action: PlayerAction): void;
  shaka?(step: ShakaStep): Promise<void>;
  /** The app stops the player, its own way. */
  stop(): Promise<unknown> | void;
}
interface Entry {
  video: VideoElement;
  status: Omit<AdapterStatus, 'currentTime' | 'paused' | 'readyState' | 'videoId'>;
  started: Started;
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
      ...pick('limit'),
      ...pick('serviceMessage'),
      ...pick('siteErrorCode'),
      ...pick('siteErrorMessage'),
    },
    player,
  };
}

/**
 * `tokenUrls`: the site's endpoints in turn; `tokenUrlFor`: an endpoint per cid; both through the
 * adapter's `getToken` option. `name`: the first asset's cid, named with `auth.load()`.
 */
function authOptions({ tokenUrls, tokenUrlFor, name: _, ...options }: PageAuthOptions) {
  if (!tokenUrls && !tokenUrlFor) return options;
  let n = 0;
  const getToken: TokenFetcher = async ({ cid, drmType, signal }) => {
    const url = tokenUrlFor
      ? (tokenUrlFor[cid] as string)
      : (tokenUrls?.[Math.min(n++, tokenUrls.length - 1)] as string);
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
) => Promise<Started>;

/** The app's envelope in front of the CDM's challenge (text challenges stay text). */
function wrap(envelope: string, challenge: unknown): Uint8Array | string {
  if (typeof challenge === 'string') return envelope + challenge;
  const bytes =
    challenge instanceof ArrayBuffer
      ? new Uint8Array(challenge)
      : new Uint8Array(
          (challenge as ArrayBufferView).buffer,
          (challenge as ArrayBufferView).byteOffset,
          (challenge as ArrayBufferView).byteLength,
        );
  const head = new TextEncoder().encode(envelope);
  const out = new Uint8Array(head.length + bytes.length);
  out.set(head);
  out.set(bytes, head.length);
  return out;
}

type PreloadManager = InstanceType<typeof shaka.media.PreloadManager>;

// Shaka's own code for a load that a later load() interrupted: apps expect it and ignore it.
const LOAD_INTERRUPTED = 7000;

const players: Record<PlayerName, Start> = {
  async shaka(video, { manifestUrl, options, app }, fail) {
    const player = new shaka.Player();
    await player.attach(video as unknown as Parameters<typeof player.attach>[0]);
    const envelope = app?.envelope;
    if (envelope) {
      player.getNetworkingEngine()!.registerRequestFilter((type, request) => {
        if (type === shaka.net.NetworkingEngine.RequestType.LICENSE) {
          request.body = wrap(envelope, request.body) as Uint8Array;
        }
      });
    }
    const auth = attachToShaka(player, authOptions(options));
    player.addEventListener('error', (event: unknown) =>
      fail((event as { detail?: unknown }).detail, 'error event'),
    );
    const load = (asset: string | PreloadManager) =>
      player.load(asset).catch((error: unknown) => {
        if ((error as { code?: number }).code !== LOAD_INTERRUPTED) fail(error, 'load()');
      });
    if (options.name) auth.load(options.name);
    void load(manifestUrl);
    const preloads = new Map<string, Promise<PreloadManager | null>>();
    return {
      auth,
      next({ cid, manifestUrl: url }) {
        auth.load(cid);
        void load(url);
      },
      store({ cid, manifestUrl: url }) {
        const storage = new shaka.offline.Storage(player);
        // No persistent licenses in this browser's ClearKey: the stored copy asks for its own.
        storage.configure({ offline: { usePersistentLicense: false } });
        return auth.store(cid, storage.store(url)).promise.finally(() => storage.destroy());
      },
      async shaka(step) {
        if ('preload' in step) {
          const { cid, manifestUrl: url } = step.preload;
          preloads.set(cid, auth.preload(cid, player.preload(url)));
        } else if ('preloadEach' in step) {
          const { cids, manifestUrl: url } = step.preloadEach;
          for (const cid of cids) {
            const manager = await auth.preload(cid, player.preload(url));
            await manager?.waitForFinish();
            // destroy() of the manager alone leaves it in the player's list of preloads.
            player.destroyAllPreloads();
          }
        } else if ('loadPreloaded' in step) {
          const preloaded = await preloads.get(step.loadPreloaded);
          if (!preloaded) throw new Error(`No preload of ${step.loadPreloaded}.`);
          void load(preloaded);
        } else {
          void load(step.reload);
        }
      },
      stop: () => player.unload(),
    };
  },
  async hls(video, { manifestUrl, options, app }, fail) {
    const hls = new Hls({
      // The app's own hook, in hls.js's way: it opens the request and sets what it needs.
      ...(app && {
        licenseXhrSetup(xhr: AppXhr, url: string, _: unknown, challenge: Uint8Array) {
          xhr.open('POST', url, true);
          if (app.withCredentials) xhr.withCredentials = true;
          for (const [name, value] of Object.entries(app.headers ?? {})) {
            xhr.setRequestHeader(name, value);
          }
          return app.envelope ? (wrap(app.envelope, challenge) as Uint8Array) : undefined;
        },
      }),
    });
    const auth = attachToHls(hls, authOptions(options));
    hls.on(Hls.Events.ERROR, (_, data) => {
      // Non-fatal errors are hls.js recovering on its own; a license failure always counts.
      if (data.fatal || findLicenseAuthError(data)) fail(data, `ERROR ${data.details}`);
    });
    if (options.name) auth.load(options.name);
    hls.loadSource(manifestUrl);
    const media = video as unknown as Parameters<typeof hls.attachMedia>[0];
    hls.attachMedia(media);
    return {
      auth,
      next({ cid, manifestUrl: url }) {
        auth.load(cid);
        hls.loadSource(url);
      },
      act({ type }) {
        if (type === 'detach-attach') {
          hls.detachMedia();
          hls.attachMedia(media);
        } else if (type === 'transfer') {
          const transferred = hls.transferMedia();
          hls.attachMedia(transferred ?? media);
        }
      },
      stop: () => hls.destroy(),
    };
  },
  async dash(video, { manifestUrl, options, app }, fail) {
    const player = dashjs.MediaPlayer().create();
    const envelope = app?.envelope;
    if (envelope) {
      player.registerLicenseRequestFilter(async (request: { data: unknown }) => {
        request.data = wrap(envelope, request.data);
      });
    }
    const auth = attachToDash(player, {
      ...authOptions(options),
      ...(app && {
        protectionData: {
          'org.w3.clearkey': {
            ...(app.withCredentials && { withCredentials: true }),
            ...(app.headers && { httpRequestHeaders: app.headers }),
          },
        },
      }),
    });
    player.on('error', (event: unknown) => fail(event, 'error event'));
    // dash.js's types say 'header'; its code takes 'headers' (anything else is query mode).
    const mode = app?.cmcd as 'query' | undefined;
    const cmcd = () =>
      mode && player.updateSettings({ streaming: { cmcd: { enabled: true, mode } } });
    cmcd();
    if (options.name) auth.load(options.name);
    const media = video as unknown as Parameters<typeof player.initialize>[0];
    player.initialize(media, manifestUrl, true);
    return {
      auth,
      next({ cid, manifestUrl: url }) {
        auth.load(cid);
        player.attachSource(url);
      },
      act(action) {
        if (action.type !== 'reset') return;
        player.reset();
        // reset() also resets dash.js's settings.
        cmcd();
        auth.load(action.asset.cid);
        player.initialize(media, action.asset.manifestUrl, true);
      },
      stop: () => player.reset(),
    };
  },
  async videojs(video, { manifestUrl, options, app }, fail) {
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
    // The source carries its key systems and the app's headers, as the plugin reads them.
    const src = (url: string) =>
      player.src({
        src: url,
        type: 'application/dash+xml',
        keySystems: auth.keySystems,
        ...(app?.headers && { emeHeaders: app.headers }),
      } as Parameters<typeof player.src>[0]);
    // The init data of the last `encrypted` event: what a stale event of this source carries.
    let initData: ArrayBuffer | null = null;
    video.addEventListener('encrypted', (event) => (initData = event?.initData ?? null));
    if (options.name) auth.load(options.name);
    src(manifestUrl);
    const next = ({ cid, manifestUrl: url }: NextAsset) => {
      auth.load(cid);
      src(url);
    };
    return {
      auth,
      next,
      act(action) {
        if (action.type !== 'src-then-stale-encrypted') return;
        next(action.asset);
        video.dispatchEvent(
          new page.MediaEncryptedEvent('encrypted', { initDataType: 'cenc', initData }),
        );
      },
      stop: () => player.dispose(),
    };
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
    const status: Entry['status'] = {
      errors: [],
      licenses: [],
      sentCids: [],
      encrypted: false,
      storedBy: {},
      renewals: { sent: [], renewed: 0, failed: [] },
      stalls: 0,
    };
    const fail = (error: unknown, source: string) => status.errors.push(describe(error, source));
    video.addEventListener('encrypted', () => (status.encrypted = true));
    let played = false;
    video.addEventListener('playing', () => (played = true));
    video.addEventListener('waiting', () => played && status.stalls++);
    const started = await players[setup.player](video, setup, fail);
    const e: Entry = { video, status, started };
    entries.set(setup.id, e);
    const { auth } = started;
    auth.on('licenseRenewed', () => e.status.renewals.renewed++);
    auth.on('renewalFailed', ({ error }) => e.status.renewals.failed.push(error.message));
    auth.on('licenseRequestSent', ({ refreshed, tokenSource, cid, licenseRequestType }) => {
      if (licenseRequestType === 'license-renewal') {
        e.status.renewals.sent.push(tokenSource);
        return;
      }
      e.status.licenses.push({ event: 'sent', refreshed, tokenSource });
      e.status.sentCids.push(cid);
    });
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
      paused: video.paused,
      readyState: video.readyState,
      videoId: video.id,
    };
  },

  showFrame: (id, seconds) => showFrame(entry(id).video, seconds),

  async next(id, asset) {
    entry(id).started.next(asset);
  },

  async act(id, action) {
    const { started } = entry(id);
    if (!started.act) throw new Error(`Player "${id}" has no actions.`);
    started.act(action);
  },

  async stop(id) {
    await entry(id).started.stop();
  },

  async store(id, asset) {
    const { started, status } = entry(id);
    if (!started.store) throw new Error(`Player "${id}" has no Storage.`);
    started.store(asset).then(
      () => (status.stored = status.storedBy[asset.cid] = 'done'),
      (error: unknown) =>
        (status.stored = status.storedBy[asset.cid] = JSON.stringify(describe(error, 'store()'))),
    );
  },

  handleOf: (id) => entry(id).started.auth,

  async shaka(id, step) {
    const { started } = entry(id);
    if (!started.shaka) throw new Error(`Player "${id}" is not a Shaka player.`);
    await started.shaka(step);
  },
};

shaka.polyfill.installAll();
page.adapters = adapters;
page.document.title = 'ready';
