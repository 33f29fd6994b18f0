import { createEngine, resolveContentId } from '../engine/engine.ts';
import { fetchCertificate, serverCertificates } from '../engine/certificates.ts';
import { contentIdFromSkd } from '../engine/fairplay.ts';
import type { LicenseAuthHandle } from '../engine/handle.ts';
import { drmTypeFor, isFairPlay } from '../engine/key-systems.ts';
import { createLicenseSender } from '../engine/license-request.ts';
import { invalidOptions, resolveOptions, type EngineOptions } from '../engine/options.ts';
import { renewEachLoad, type RenewalMedia } from '../engine/renewal.ts';
import type { LoadSession } from '../engine/session.ts';

type Callback<T> = (error: unknown, value?: T) => void;
/** videojs-contrib-eme's options of one key system (the members this package sets). */
export interface VideoJsKeySystem {
  url?: string;
  /**
   * Sends the license request with the token attached; called by the plugin as `(emeOptions,
   * keyMessage, callback)`, for FairPlay `(emeOptions, contentId, keyMessage, callback)`.
   */
  getLicense(...args: unknown[]): void;
  /** FairPlay: the ID of the `skd://` URI in `initData`, which the plugin passes on to `getLicense`. */
  getContentId?(emeOptions: unknown, initData: string): string | null;
  /** FairPlay: the certificate from the `fairplay` options, given to `callback` (or FAIRPLAY_CERTIFICATE). */
  getCertificate?(emeOptions: unknown, callback: Callback<Uint8Array>): void;
}
/** What the handle uses of a video.js player with videojs-contrib-eme registered. */
export interface VideoJsPlayer {
  /** Adds a player event listener (the handle listens for source changes and dispose). */
  on(type: string, listener: () => void): void;
  /** Removes a listener added with `on`. */
  off(type: string, listener: () => void): void;
  eme?: unknown;
  /** video.js's `error()`: called with a MediaError-like object only. */
  error?: unknown;
  /** The source being played: names the load a license request belongs to. */
  currentSrc?(): string;
  /** The source object given to `src()`: its `keySystems` may name a license URL of its own. */
  currentSource?(): unknown;
  /** The tech, on which videojs-contrib-eme announces each key message before `getLicense`. */
  tech?(safety: boolean): EventSource | undefined;
}
/** The plugin announces each key message on the tech (`keymessage`) right before `getLicense`. */
interface EventSource {
  on(type: string, listener: (event: { messageEvent?: KeyMessage }) => void): void;
  off(type: string, listener: (event: { messageEvent?: KeyMessage }) => void): void;
  /** The media element, whose `encrypted` events the plugin answers. */
  el?(): MediaElement | null;
}
interface MediaElement {
  addEventListener(type: 'encrypted', listener: (event: Stoppable) => void, capture: true): void;
  removeEventListener(type: 'encrypted', listener: (event: Stoppable) => void, capture: true): void;
}
interface Stoppable {
  stopImmediatePropagation(): void;
}
interface KeyMessage {
  messageType?: string;
  message?: unknown;
}

export interface VideoJsLicenseAuthOptions extends EngineOptions {
  /**
   * The cid for a license request, when it depends on the source: `emeOptions` are the plugin's
   * options merged with the current source (`src`, `type`, `keySystems`, ...).
   */
  getContentId?: (context: {
    keySystem: string;
    emeOptions: Record<string, unknown>;
  }) => string | undefined | Promise<string | undefined>;
}

export interface VideoJsLicenseAuthHandle extends LicenseAuthHandle {
  /** The `keySystems` to give `player.src({ src, type, keySystems })` (also set as eme options). */
  keySystems: Record<string, VideoJsKeySystem>;
}

/**
 * Attaches tokens (or gateway custom data) to the license requests of a video.js player through
 * videojs-contrib-eme's `getLicense` (its own request, its own error handling): the handle sends
 * each license request with `fetch`, reads the answer before the CDM, re-sends once with a fresh
 * token where the service's refusal says so, and hands a failure to the plugin, which sets it as
 * the player's error (`player.error().originalError`).
 */
export function attachLicenseAuth(
  player: VideoJsPlayer,
  options: VideoJsLicenseAuthOptions,
): VideoJsLicenseAuthHandle {
  const opts = resolveOptions<VideoJsLicenseAuthOptions['getContentId']>(options, (o) => [
    o['licenseServer'] === undefined &&
      o['licenseProxy'] === undefined &&
      'licenseServer or licenseProxy is required (getLicense sends the request the plugin would have sent)',
  ]);
  if (typeof player?.on !== 'function' || !player.eme) {
    throw invalidOptions(
      "player must be a video.js player with videojs-contrib-eme registered (import 'videojs-contrib-eme')",
    );
  }
  const engine = createEngine(opts);
  const send = createLicenseSender(engine);
  engine.checkHeader(Object.values(engine.servers));
  // The plugin becomes an object with its options once it runs for the player.
  if (typeof player.eme === 'function') (player.eme as () => void).call(player);
  const eme = player.eme as { options: { keySystems?: Record<string, unknown> } };
  const previous = eme.options.keySystems;
  // The plugin asks getCertificate of any key system for its CDM's server certificate.
  const certificates = new Map<string, () => Promise<Uint8Array>>();
  for (const { keySystem, certificate, url } of serverCertificates(opts)) {
    certificates.set(keySystem, () =>
      certificate ? Promise.resolve(certificate) : fetchCertificate(opts, url as string),
    );
  }

  // The message type of each key message, told by the plugin's `keymessage` event on the tech;
  // known by its bytes: for FairPlay the plugin hands getLicense `new Uint8Array(message)`.
  const messageTypes = new WeakMap<object, string>();
  const bytesOf = (message: unknown) =>
    typeof message === 'object' && message !== null
      ? ArrayBuffer.isView(message)
        ? message.buffer
        : message
      : undefined;
  const typeOf = (message: unknown) => messageTypes.get(bytesOf(message) ?? {});
  const onKeyMessage = ({ messageEvent }: { messageEvent?: KeyMessage }) => {
    const key = bytesOf(messageEvent?.message);
    if (key && messageEvent?.messageType) messageTypes.set(key, messageEvent.messageType);
  };
  // `src()` changes the player's source at once, the tech's a task later; meanwhile the source
  // left still appends and the element raises its `encrypted` events. The plugin would answer them
  // with the new source's options (Chromium 156 refuses key system access to them before VHS adds
  // the content types: the app hears an error) and the new load's token: they go no further.
  let loadingSrc = player.currentSrc?.() || undefined;
  const onEncrypted = (event: Stoppable) => {
    if (loadingSrc !== undefined && player.currentSrc?.() !== loadingSrc) {
      event.stopImmediatePropagation();
    }
  };
  const techs = new Set<EventSource>();
  const watchTech = () => {
    const tech = player.tech?.(true);
    if (tech && !techs.has(tech)) {
      techs.add(tech);
      tech.on('keymessage', onKeyMessage);
      // Capture: on the element itself, before the plugin's listener.
      tech.el?.()?.addEventListener('encrypted', onEncrypted, true);
    }
  };
  watchTech();

  const license = async (
    keySystem: string,
    emeOptions: unknown,
    skdId: unknown,
    message: unknown,
    session: LoadSession,
  ): Promise<Uint8Array> => {
    const drmType = drmTypeFor(keySystem, opts.drmTypes) as string;
    const eme = emeOptions as {
      emeHeaders?: Record<string, string>;
      keySystems?: Record<string, { url?: string; licenseHeaders?: Record<string, string> }>;
    };
    const given = eme?.keySystems?.[keySystem];
    const cid = await resolveContentId(
      opts,
      session,
      keySystem,
      () => opts.getContentId?.({ keySystem, emeOptions: emeOptions as Record<string, unknown> }),
      () => skdId as string | null,
    );
    return send({
      keySystem,
      drmType,
      cid,
      // The source's own URL first: the plugin merges its options over the source, which would
      // drop a URL given as a string and let a plugin-wide URL win over the source's.
      url:
        licenseUrlOf(keySystemOf(player.currentSource?.(), keySystem)) ??
        licenseUrlOf(given) ??
        (engine.servers[keySystem] as string),
      body: message as ArrayBuffer,
      // What the plugin's own request would have sent (null values take a header out).
      headers: definedHeaders({ ...eme?.emeHeaders, ...given?.licenseHeaders }),
      licenseRequestType: typeOf(message) ?? null,
      session,
    });
  };

  // The player's error (MEDIA_ERR_ENCRYPTED), which stops playback: the app hears why.
  const playerError = (error: Error) =>
    (player.error as ((e: object) => unknown) | undefined)?.call(player, {
      code: 5,
      message: error.message,
      originalError: error,
    });

  const keySystems: Record<string, VideoJsKeySystem> = {};
  // Key systems without a drm_type (not built in, not in drmTypes) stay the app's.
  for (const keySystem of Object.keys(engine.servers).filter((ks) =>
    drmTypeFor(ks, opts.drmTypes),
  )) {
    const fairplay = isFairPlay(keySystem);
    keySystems[keySystem] = {
      // FairPlay: (emeOptions, contentId, keyMessage, callback); others: (emeOptions, keyMessage, callback).
      getLicense(emeOptions, ...args) {
        const callback = args.pop() as Callback<Uint8Array>;
        const [skdId, message] = fairplay ? args : [null, ...args];
        const renewal = typeOf(message) === 'license-renewal';
        const session = engine.loads.current();
        license(keySystem, emeOptions, skdId, message, session).then(
          (bytes) => callback(null, bytes),
          (error: unknown) => {
            // The app moved on: the plugin's session belongs to the source that is gone.
            if (session.movedOn) return;
            callback(error);
            // The plugin drops a failed renewal silently: the stream stops counting, the app
            // must hear why (e.g. the concurrent-stream limit).
            if (renewal) playerError(error as Error);
          },
        );
      },
      ...(fairplay && {
        getContentId: (_: unknown, initData: string) => contentIdFromSkd(initData),
      }),
      ...(certificates.has(keySystem) && {
        getCertificate(_: unknown, callback: Callback<Uint8Array>) {
          certificates.get(keySystem)!().then(
            (cert) => callback(null, cert),
            (error: unknown) => callback(error),
          );
        },
      }),
    };
  }
  const merged: Record<string, unknown> = { ...previous };
  for (const [keySystem, ours] of Object.entries(keySystems)) {
    merged[keySystem] = { ...(merged[keySystem] as object), ...ours };
  }
  eme.options.keySystems = merged;

  let attached = true;
  const prefetch: LicenseAuthHandle['prefetch'] = async (request = {}) =>
    attached && engine.prefetch(request, Object.keys(keySystems), engine.loads.current());
  // A renewal refused for good: the player's error (MEDIA_ERR_ENCRYPTED), which stops playback.
  const renew = renewEachLoad(engine, {
    send,
    media: () => (player.tech?.(true) as { el?(): RenewalMedia } | undefined)?.el?.(),
    refused: playerError,
  });
  const onLoadStart = () => {
    loadingSrc = player.currentSrc?.();
    renew(engine.loads.started(loadingSrc));
    watchTech();
    if (opts.autoPrefetch) prefetch().catch(() => undefined);
  };
  const detach = () => {
    if (!attached) return;
    attached = false;
    player.off('loadstart', onLoadStart);
    player.off('dispose', detach);
    for (const tech of techs) {
      tech.off('keymessage', onKeyMessage);
      tech.el?.()?.removeEventListener('encrypted', onEncrypted, true);
    }
    engine.destroy();
    if (eme.options.keySystems === merged) eme.options.keySystems = previous;
  };
  player.on('loadstart', onLoadStart);
  player.on('dispose', detach);
  return {
    keySystems,
    prefetch,
    load: engine.loads.name,
    clearTokens: engine.clearTokens,
    detach,
    on: engine.emitter.on,
  };
}

/** A source's options of one key system, as the app gave them to `player.src()`. */
const keySystemOf = (source: unknown, keySystem: string): unknown =>
  (source as { keySystems?: Record<string, unknown> } | null | undefined)?.keySystems?.[keySystem];

/**
 * The license URL in a key system's options, as videojs-contrib-eme reads it: the options
 * themselves as a string, else `url`, else `licenseUri`.
 */
function licenseUrlOf(options: unknown): string | undefined {
  if (typeof options === 'string') return options || undefined;
  if (typeof options !== 'object' || options === null) return undefined;
  const { url, licenseUri } = options as { url?: unknown; licenseUri?: unknown };
  return [url, licenseUri].find((u): u is string => typeof u === 'string' && u !== '');
}

/** Headers with a value: the plugin takes out a header whose value is null. */
const definedHeaders = (headers: Record<string, string | null | undefined>) =>
  Object.fromEntries(
    Object.entries(headers).filter((entry): entry is [string, string] => entry[1] != null),
  );
