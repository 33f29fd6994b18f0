import { toBytes } from '../engine/bytes.ts';
import { createEngine } from '../engine/engine.ts';
import { serverCertificates } from '../engine/certificates.ts';
import { drmTypeFor, isFairPlay } from '../engine/key-systems.ts';
import { invalidOptions, resolveOptions } from '../engine/options.ts';
import { renewEachLoad, type RenewalMedia } from '../engine/renewal.ts';
import type { LicenseAuthHandle as Handle, PrefetchOptions } from '../engine/handle.ts';
import type { LicenseAuthEvents } from './events.ts';
import { createFailureCallback, type SessionHost } from './failure-callback.ts';
import { createLicenseFilters } from './license-filters.ts';
import { createLoadRouting, type Operation, type RoutedPlayer } from './load-routing.ts';
import type { LoadSession } from '../engine/session.ts';
import type { GetContentId, LicenseAuthOptions } from './options.ts';
import {
  LICENSE,
  type DrmConfiguration,
  type NetworkingEngine,
  type Player,
  type ShakaRequest,
  type Storage,
} from './shaka-types.ts';

/**
 * What `attachLicenseAuth` returns: `on` also takes `licenseFailed`; `preload`, `store` and
 * `remove` name the asset of a `player.preload()`, a Storage download and a Storage removal.
 */
export interface LicenseAuthHandle extends Handle<LicenseAuthEvents> {
  /**
   * `auth.preload('movie-2', player.preload(url))`, in one expression (`preload()` copies the
   * configuration when called): its token is fetched at once, its license requests and those of
   * the load that takes it (`player.load(manager)`) use this cid; other loads keep the cid named
   * with `load()`. Returns what it was given.
   */
  preload<T extends object>(contentId: string, preloading: T): T;
  /**
   * `auth.store('movie-2', storage.store(url))`, in one expression (`store()` copies the
   * configuration when called): the download's token is fetched at once, its license requests use
   * this cid, and the player's unloads and loads leave them alone until the download ends.
   * Returns what it was given.
   */
  store<T extends Operation>(contentId: string, operation: T): T;
  /**
   * `auth.remove('movie-2', storage.remove(offlineUri))` (or `storage.removeEmeSessions()`): the
   * release requests carry this cid's token until the removal ends. One removal at a time.
   * Returns what it was given.
   */
  remove<T extends Operation>(contentId: string, operation: T): T;
}

/** What the handle uses of a shaka.Player, or of a shaka.offline.Storage (no events, no sessions). */
interface Target extends SessionHost, RoutedPlayer {
  getNetworkingEngine(): NetworkingEngine | null;
  getConfiguration(): { drm: DrmConfiguration };
  resetConfiguration?(): void;
  load?(asset: unknown, ...rest: unknown[]): Promise<unknown>;
  addEventListener?(type: string, listener: (event: never) => void): void;
  removeEventListener?(type: string, listener: (event: never) => void): void;
  getMediaElement?(): RenewalMedia | null;
  dispatchEvent?(event: object): boolean;
  unload?(): Promise<void>;
}

/** What the key-system probe uses of `navigator` (the root type check has no DOM library). */
interface Eme {
  requestMediaKeySystemAccess?(keySystem: string, configurations: object[]): Promise<unknown>;
}
// One handle per networking engine: a Storage built on a player shares the player's, and a second
// set of filters would send two tokens and wrap a FairPlay body twice.
const engines = new WeakSet<object>();

/**
 * Attaches tokens (or gateway custom data) to the license requests of a Shaka player, or of a
 * `shaka.offline.Storage` built without one (a Storage built on a player uses the player's).
 */
export function attachLicenseAuth(
  player: Player | Storage,
  options: LicenseAuthOptions,
): LicenseAuthHandle {
  const opts = resolveOptions<GetContentId>(options);
  const target = player as unknown as Target;
  const net =
    typeof target?.getNetworkingEngine === 'function' ? target.getNetworkingEngine() : null;
  if (!net) {
    throw invalidOptions(
      'player must be a shaka.Player or shaka.offline.Storage that is not destroyed',
    );
  }
  if (engines.has(net)) {
    throw invalidOptions(
      'this networking engine has a handle already (a Storage built on a player shares it): attach once, or detach() first',
    );
  }
  const engine = createEngine<LicenseAuthEvents>(opts);

  // Configuration the app left empty is filled in, and taken out again on detach.
  const drm = () => target.getConfiguration().drm;
  const config = drm();
  const servers: Record<string, string> = {};
  // One URL for every key system fills FairPlay only with `fairplay` options: on Safari a FairPlay
  // server makes Shaka play every HLS load natively (`streaming.useNativeHlsForFairPlay`).
  const oneUrl = typeof (opts.licenseProxy ?? opts.licenseServer) === 'string' && !opts.fairplay;
  for (const [keySystem, url] of Object.entries(engine.servers)) {
    if (!config.servers[keySystem] && !(oneUrl && isFairPlay(keySystem))) servers[keySystem] = url;
  }
  engine.checkHeader([
    ...Object.values(engine.servers),
    ...Object.entries(config.servers)
      .filter(([keySystem]) => drmTypeFor(keySystem, opts.drmTypes))
      .map(([, url]) => url),
  ]);
  const advanced: Record<
    string,
    { serverCertificate?: Uint8Array; serverCertificateUri?: string }
  > = {};
  // FairPlay's certificate and Widevine's service certificate, unless the app configured one.
  const certificateUrls = new Set<string>();
  for (const { keySystem, certificate, url } of serverCertificates(opts)) {
    const own = config.advanced?.[keySystem];
    if (own?.serverCertificate?.length || own?.serverCertificateUri) continue;
    advanced[keySystem] = certificate
      ? { serverCertificate: certificate }
      : { serverCertificateUri: url };
    if (url) certificateUrls.add(url);
  }
  // The app's own transform and failure callback run within the handle's.
  const routing = createLoadRouting(engine, target, config.initDataTransform, autoPrefetch);

  const filters = createLicenseFilters(engine, routing.sessionOf, net, certificateUrls);
  const failureCallback = createFailureCallback(
    target,
    config.failureCallback,
    engine.emitter.emit,
    opts.sessionRetries,
    filters.dropped,
  );
  const ours = {
    drm: {
      servers,
      advanced,
      failureCallback,
      // The one the next download copies.
      get initDataTransform() {
        return routing.transform;
      },
    },
  };
  target.configure(ours);
  // resetConfiguration() would take the servers, the certificate and the failure callback away
  // while the filters stay: the handle's configuration is applied again after it.
  const resetConfiguration = target.resetConfiguration;
  if (resetConfiguration) {
    target.resetConfiguration = function (this: Target) {
      resetConfiguration.call(this);
      target.configure(ours);
    };
  }
  // The preload manager the app hands to player.load() says which preload that load takes.
  const load = target.load;
  if (load) {
    target.load = function (this: Target, asset, ...rest) {
      engine.loads.take(routing.of(asset));
      return load.call(this, asset, ...rest);
    };
  }
  engines.add(net);

  // The configured key systems this browser has, asked once and in the background, as Shaka asks:
  // with one URL for all of them, the only one it has is the one the first load takes (no EME: none
  // is asked, and none is ruled out).
  const lacks: Record<string, boolean> = {};
  const probed = Promise.all(
    // Asked in a then(): a browser that throws at once lacks it too.
    Object.keys(drm().servers).map((keySystem) =>
      Promise.resolve()
        .then(() =>
          (globalThis as { navigator?: Eme }).navigator?.requestMediaKeySystemAccess?.(keySystem, [
            { videoCapabilities: [{ contentType: 'video/mp4; codecs="avc1.42E01E"' }] },
          ]),
        )
        .catch(() => (lacks[keySystem] = true)),
    ),
  );
  let attached = true;
  const prefetchFor = async (
    session: LoadSession,
    request: PrefetchOptions = {},
  ): Promise<boolean> => {
    await probed;
    if (!attached) return false;
    const now = drm();
    return engine.prefetch(
      { ...request, keySystem: request.keySystem ?? now.preferredKeySystems[0] },
      Object.keys(now.servers).filter((keySystem) => !lacks[keySystem]),
      session,
    );
  };
  const prefetch = (request?: PrefetchOptions) => prefetchFor(engine.loads.current(), request);
  // Declared, not assigned: the routing made above takes it.
  function autoPrefetch(session: LoadSession) {
    if (opts.autoPrefetch) prefetchFor(session).catch(() => undefined);
  }

  // A renewal refused for good: Shaka's error event (a DRM LICENSE_REQUEST_FAILED holding the
  // refusal in its data), and the player unloads. Renewals are a shaka.Player's (its loads start
  // them), which has every method used here.
  const renew = renewEachLoad(engine, {
    media: () => target.getMediaElement!(),
    // Through Shaka's networking engine: the app's filters and ours (token, answer, 7011) run on it.
    async send({ url, body }) {
      // The networking engine fills in the rest (headers, attempt).
      const response = await net!.request(LICENSE, {
        uris: [url],
        method: 'POST',
        // The driver hands over the CDM's message as bytes.
        body,
        retryParameters: drm().retryParameters,
        licenseRequestType: 'license-renewal',
        drmInfo: target.drmInfo!(),
      } as unknown as ShakaRequest).promise;
      return toBytes(response.data);
    },
    refused(error) {
      // What Shaka's dispatchEvent() reads of a FakeEvent (`stopped`, unset: not stopped) and what
      // an app's listener may (`defaultPrevented`).
      target.dispatchEvent!({
        type: 'error',
        detail: { severity: 2, category: 6, code: 6007, data: [error] },
        defaultPrevented: false,
      });
      void target.unload!().catch(() => undefined);
    },
  });
  const listeners: Record<string, (event: never) => void> = {
    downloadfailed: filters.onDownloadFailed,
    // Unloading must not wait for a slow site: Shaka waits for pending request filters. Only the
    // player's load ends: a preload and a Storage download go on.
    unloading: () => engine.loads.ended('The player unloaded.'),
    loading: () => {
      const session = engine.loads.started();
      autoPrefetch(session);
      renew(session);
    },
  };
  // A Storage built without a player has no events: no 401/403 retry, no prefetch on loading.
  for (const [type, listener] of Object.entries(listeners))
    target.addEventListener?.(type, listener);

  return {
    prefetch,
    load: engine.loads.name,
    clearTokens: engine.clearTokens,
    preload: routing.preload,
    store: routing.download,
    remove: routing.removal,
    on: engine.emitter.on,
    detach() {
      if (!attached) return;
      attached = false;
      filters.detach();
      if (resetConfiguration) target.resetConfiguration = resetConfiguration;
      if (load) target.load = load;
      engines.delete(net);
      for (const [type, listener] of Object.entries(listeners))
        target.removeEventListener?.(type, listener);
      engine.destroy();
      // Shaka resets a configuration entry given as undefined.
      const unset = (added: object) =>
        Object.fromEntries(Object.keys(added).map((k) => [k, undefined]));
      const back: Record<string, unknown> = { servers: unset(servers), advanced: unset(advanced) };
      // The app's callback and transform again, unless it set others since.
      const now = drm() as unknown as Record<string, unknown>;
      for (const key of ['failureCallback', 'initDataTransform'] as const) {
        if (now[key] === ours.drm[key]) back[key] = config[key];
      }
      target.configure({ drm: back });
    },
  };
}
