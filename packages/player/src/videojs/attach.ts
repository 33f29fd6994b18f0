import { createEngine, resolveContentId } from '../engine/engine.ts';
import { LicenseAuthError } from '../engine/errors.ts';
import { contentIdFromSkd, normaliseCertificate } from '../engine/fairplay.ts';
import type { LicenseAuthHandle } from '../engine/handle.ts';
import { drmTypeFor, isFairPlay } from '../engine/key-systems.ts';
import { createLicenseSender } from '../engine/license-request.ts';
import { invalidOptions, resolveOptions, type EngineOptions } from '../engine/options.ts';

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
      'licenseServer is required (getLicense sends the request the plugin would have sent)',
  ]);
  if (typeof player?.on !== 'function' || !player.eme) {
    throw invalidOptions(
      "player must be a video.js player with videojs-contrib-eme registered (import 'videojs-contrib-eme')",
    );
  }
  const engine = createEngine(opts);
  const sender = createLicenseSender(engine);
  engine.checkHeader(Object.values(engine.servers));
  // The plugin becomes an object with its options once it runs for the player.
  if (typeof player.eme === 'function') (player.eme as () => void).call(player);
  const eme = player.eme as { options: { keySystems?: Record<string, unknown> } };
  const previous = eme.options.keySystems;
  const { certificate, certificateUrl } = opts.fairplay ?? {};

  const license = (keySystem: string, emeOptions: unknown, skdId: unknown, message: unknown) => {
    const drmType = drmTypeFor(keySystem, opts.drmTypes) as string;
    const given = (emeOptions as { keySystems?: Record<string, { url?: string }> })?.keySystems;
    return resolveContentId(
      opts,
      keySystem,
      () => opts.getContentId?.({ keySystem, emeOptions: emeOptions as Record<string, unknown> }),
      () => skdId as string | null,
    ).then((cid) =>
      sender.send({
        keySystem,
        drmType,
        cid,
        url: given?.[keySystem]?.url ?? (engine.servers[keySystem] as string),
        body: message as ArrayBuffer,
        licenseRequestType: null,
      }),
    );
  };

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
        license(keySystem, emeOptions, skdId, message).then(
          (bytes) => callback(null, bytes),
          (error: unknown) => callback(error),
        );
      },
      ...(fairplay && {
        getContentId: (_: unknown, initData: string) => contentIdFromSkd(initData),
      }),
      ...(fairplay &&
        opts.fairplay && {
          getCertificate(_: unknown, callback: Callback<Uint8Array>) {
            (certificate !== undefined
              ? Promise.resolve(certificate)
              : (opts.fetch ?? fetch)(certificateUrl ?? '', {}).then((res) => res.arrayBuffer())
            ).then(
              (cert) => callback(null, normaliseCertificate(cert)),
              (error: unknown) =>
                callback(
                  new LicenseAuthError(
                    'FAIRPLAY_CERTIFICATE',
                    `The FairPlay certificate did not load (${String(error)}): set fairplay.certificateUrl or fairplay.certificate.`,
                  ),
                ),
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
    attached && engine.prefetch(request, Object.keys(keySystems));
  const onLoadStart = () => {
    if (opts.autoPrefetch) prefetch().catch(() => undefined);
  };
  const detach = () => {
    if (!attached) return;
    attached = false;
    player.off('loadstart', onLoadStart);
    player.off('dispose', detach);
    sender.abortAll(new LicenseAuthError('ABORTED', 'The license auth handle was detached.'));
    engine.destroy();
    if (eme.options.keySystems === merged) eme.options.keySystems = previous;
  };
  player.on('loadstart', onLoadStart);
  player.on('dispose', detach);
  return { keySystems, prefetch, detach, on: engine.emitter.on };
}
