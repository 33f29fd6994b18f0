import { createEngine } from '../engine/engine.ts';
import { LicenseAuthError } from '../engine/errors.ts';
import { normaliseCertificate } from '../engine/fairplay.ts';
import { drmTypeFor } from '../engine/key-systems.ts';
import { invalidOptions, resolveOptions } from '../engine/options.ts';
import type { LicenseAuthHandle as Handle, PrefetchOptions } from '../engine/handle.ts';
import type { LicenseAuthEvents } from './events.ts';
import { createFailureCallback, type SessionHost } from './failure-callback.ts';
import { createLicenseFilters, type DownloadFailedEvent } from './license-filters.ts';
import type { GetContentId, LicenseAuthOptions } from './options.ts';
import {
  RequestType,
  type DrmConfiguration,
  type NetworkingEngine,
  type Player,
  type ShakaResponse,
  type Storage,
} from './shaka-types.ts';

/** What `attachLicenseAuth` returns: `on` also takes `licenseFailed`. */
export type LicenseAuthHandle = Handle<LicenseAuthEvents>;

/** What the handle uses of a shaka.Player, or of a shaka.offline.Storage (no events, no sessions). */
interface Target extends SessionHost {
  getNetworkingEngine(): NetworkingEngine | null;
  getConfiguration(): { drm: DrmConfiguration };
  configure(config: object): unknown;
  addEventListener?(type: string, listener: (event: never) => void): void;
  removeEventListener?(type: string, listener: (event: never) => void): void;
}

const FAIRPLAY = 'com.apple.fps';
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
      'this networking engine has a handle already (a Storage built on a player shares the player’s): attach once, or detach() first',
    );
  }
  const engine = createEngine<LicenseAuthEvents>(opts);

  // Configuration the app left empty is filled in, and taken out again on detach.
  const config = target.getConfiguration().drm;
  const servers: Record<string, string> = {};
  for (const [keySystem, url] of Object.entries(engine.servers)) {
    if (!config.servers[keySystem]) servers[keySystem] = url;
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
  const { certificate, certificateUrl: certUrl } = opts.fairplay ?? {};
  const page = (globalThis as { location?: { href: string } }).location?.href;
  const certificateUrl = certUrl && new URL(certUrl, page).href;
  const fps = config.advanced?.[FAIRPLAY];
  if (
    (certificate !== undefined || certificateUrl) &&
    !fps?.serverCertificate?.length &&
    !fps?.serverCertificateUri
  ) {
    advanced[FAIRPLAY] =
      certificate !== undefined
        ? { serverCertificate: normaliseCertificate(certificate) }
        : { serverCertificateUri: certificateUrl };
  }
  const previousFailureCallback = config.failureCallback;
  const failureCallback = createFailureCallback(
    target,
    previousFailureCallback,
    engine.emitter.emit,
    opts.sessionRetries,
  );
  target.configure({ drm: { servers, advanced, failureCallback } });

  // Re-sends with a fresh token, aborted on unload and detach like the token fetches they wait for.
  const resends = new Set<{ abort(): unknown }>();
  const abortResends = () => {
    for (const pending of resends) void pending.abort();
    resends.clear();
  };
  const filters = createLicenseFilters({
    engine,
    send: async (request) => {
      const pending = net.request(RequestType.LICENSE, request);
      resends.add(pending);
      try {
        return (await pending.promise) as ShakaResponse;
      } finally {
        resends.delete(pending);
      }
    },
    certificateUrl,
  });
  net.registerRequestFilter(filters.requestFilter);
  net.registerResponseFilter(filters.responseFilter);
  engines.add(net);

  let attached = true;
  const prefetch = async (request: PrefetchOptions = {}): Promise<boolean> => {
    if (!attached) return false;
    const drm = target.getConfiguration().drm;
    return engine.prefetch(
      { ...request, keySystem: request.keySystem ?? drm.preferredKeySystems[0] },
      Object.keys(drm.servers),
    );
  };

  const listeners: Record<string, (event: never) => void> = {
    downloadfailed: (event: DownloadFailedEvent) => filters.onDownloadFailed(event),
    // Unloading must not wait for a slow site: Shaka waits for pending request filters.
    unloading: () => {
      engine.abortAll(
        new LicenseAuthError('ABORTED', 'The player unloaded before the token arrived.'),
      );
      abortResends();
    },
    loading: () => {
      if (opts.autoPrefetch) prefetch().catch(() => undefined);
    },
  };
  // A Storage built without a player has no events: no 401/403 retry, no prefetch on loading.
  for (const [type, listener] of Object.entries(listeners))
    target.addEventListener?.(type, listener);

  return {
    prefetch,
    on: engine.emitter.on,
    detach() {
      if (!attached) return;
      attached = false;
      net.unregisterRequestFilter(filters.requestFilter);
      net.unregisterResponseFilter(filters.responseFilter);
      engines.delete(net);
      for (const [type, listener] of Object.entries(listeners))
        target.removeEventListener?.(type, listener);
      engine.destroy();
      abortResends();
      // Shaka resets a configuration entry given as undefined.
      const unset = (added: object) =>
        Object.fromEntries(Object.keys(added).map((k) => [k, undefined]));
      const restore =
        target.getConfiguration().drm.failureCallback === failureCallback
          ? { failureCallback: previousFailureCallback }
          : {};
      target.configure({
        drm: { servers: unset(servers), advanced: unset(advanced), ...restore },
      });
    },
  };
}
