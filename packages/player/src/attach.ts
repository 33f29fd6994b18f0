import axios from 'axios';
import { LicenseAuthError } from './errors.ts';
import { createEmitter, type LicenseAuthEventName, type Listener } from './events.ts';
import { normaliseCertificate } from './fairplay.ts';
import { drmTypeFor, SERVER_KEY_SYSTEMS, type DrmType } from './key-systems.ts';
import { createLicenseFilters, type DownloadFailedEvent } from './license-filters.ts';
import { resolveOptions, type LicenseAuthOptions } from './options.ts';
import type { Player } from './shaka-types.ts';
import { createTokenCache } from './token-cache.ts';
import { createSiteFetcher, withDeadline } from './token-client.ts';

export interface PrefetchOptions {
  keySystem?: string;
  contentId?: string;
}

export interface LicenseAuthHandle {
  /**
   * Fetches the token for the coming license request now, so it overlaps manifest loading.
   * Resolves `true` once a token is ready, `false` when the key system or cid is not known yet.
   */
  prefetch(options?: PrefetchOptions): Promise<boolean>;
  /** Removes every filter and listener, aborts token fetches and undoes the configuration it added. */
  detach(): void;
  on<K extends LicenseAuthEventName>(name: K, listener: Listener<K>): () => void;
}

type EventTargetLike = {
  addEventListener(type: string, listener: (event: never) => void): void;
  removeEventListener(type: string, listener: (event: never) => void): void;
};

const FAIRPLAY = 'com.apple.fps';

/** Attaches tokens (or gateway custom data) to the license requests of a Shaka player. */
export function attachLicenseAuth(player: Player, options: LicenseAuthOptions): LicenseAuthHandle {
  const opts = resolveOptions(options);
  const net =
    typeof player?.getNetworkingEngine === 'function' ? player.getNetworkingEngine() : null;
  if (!net) {
    throw new LicenseAuthError(
      'INVALID_OPTIONS',
      'attachLicenseAuth(player, options): player must be a shaka.Player that is not destroyed.',
    );
  }
  const emitter = createEmitter();
  const cache = createTokenCache({
    lifetimeMs: opts.tokenLifetimeMs,
    minRemainingMs: opts.tokenMinRemainingMs,
    now: opts.now,
  });
  const source = opts.url ?? (opts.kind === 'token' ? 'getToken()' : 'getCustomData()');
  const fetchToken = withDeadline(
    opts.fetcher ?? createSiteFetcher(opts.axios ?? axios, source, opts.kind, opts.retry),
    source,
    opts.kind,
    opts.tokenTimeoutMs,
  );
  const keyOf = (cid: string, drmType: DrmType) => `${drmType}\n${cid}`;
  let lastKeySystem: string | undefined;

  const getToken = (cid: string, drmType: DrmType) =>
    cache.get(keyOf(cid, drmType), async (signal) => {
      const base = { cid, drmType, kind: opts.kind };
      const startedAt = opts.now();
      emitter.emit('tokenRequested', base);
      try {
        const value = await fetchToken(cid, drmType, signal);
        emitter.emit('tokenReceived', { ...base, durationMs: opts.now() - startedAt });
        return value;
      } catch (error) {
        // withDeadline rejects with LicenseAuthErrors only.
        emitter.emit('tokenFailed', {
          ...base,
          durationMs: opts.now() - startedAt,
          error: error as LicenseAuthError,
        });
        throw error;
      }
    });

  // Configuration the app left empty is filled in, and taken out again on detach.
  const config = player.getConfiguration().drm;
  const servers: Record<string, string> = {};
  const wanted =
    typeof opts.licenseServer === 'string'
      ? Object.fromEntries(
          [...SERVER_KEY_SYSTEMS, ...Object.keys(opts.drmTypes)].map((ks) => [
            ks,
            opts.licenseServer as string,
          ]),
        )
      : (opts.licenseServer ?? {});
  for (const [keySystem, url] of Object.entries(wanted)) {
    if (!config.servers[keySystem]) {
      servers[keySystem] = url;
    }
  }
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
  player.configure({ drm: { servers, advanced } });

  const filters = createLicenseFilters({
    options: opts,
    emit: emitter.emit,
    getToken,
    invalidate: (cid, drmType, value) => cache.invalidate(keyOf(cid, drmType), value),
    certificateUrl,
    onKeySystemUsed: (keySystem) => {
      lastKeySystem = keySystem;
    },
  });
  net.registerRequestFilter(filters.requestFilter);
  net.registerResponseFilter(filters.responseFilter);

  let attached = true;
  const prefetch = async (request: PrefetchOptions = {}): Promise<boolean> => {
    if (!attached) return false;
    const cid = request.contentId ?? opts.contentId;
    const drm = player.getConfiguration().drm;
    const configured = Object.keys(drm.servers).filter((ks) => drmTypeFor(ks, opts.drmTypes));
    const keySystem =
      request.keySystem ??
      drm.preferredKeySystems[0] ??
      lastKeySystem ??
      (configured.length === 1 ? configured[0] : undefined);
    const drmType = keySystem && drmTypeFor(keySystem, opts.drmTypes);
    if (!cid || !drmType) return false;
    await getToken(cid, drmType);
    return true;
  };

  const listeners: Record<string, (event: never) => void> = {
    downloadfailed: (event: DownloadFailedEvent) => filters.onDownloadFailed(event),
    // Unloading must not wait for a slow site: Shaka waits for pending request filters.
    unloading: () =>
      cache.abortAll(
        new LicenseAuthError('ABORTED', 'The player unloaded before the token arrived.'),
      ),
    loading: () => {
      if (opts.autoPrefetch) prefetch().catch(() => undefined);
    },
  };
  const target = player as unknown as EventTargetLike;
  for (const [type, listener] of Object.entries(listeners)) target.addEventListener(type, listener);

  return {
    prefetch,
    on: emitter.on,
    detach() {
      if (!attached) return;
      attached = false;
      net.unregisterRequestFilter(filters.requestFilter);
      net.unregisterResponseFilter(filters.responseFilter);
      for (const [type, listener] of Object.entries(listeners))
        target.removeEventListener(type, listener);
      cache.destroy();
      emitter.clear();
      // Shaka resets a configuration entry given as undefined.
      const unset = (added: object) =>
        Object.fromEntries(Object.keys(added).map((k) => [k, undefined]));
      player.configure({ drm: { servers: unset(servers), advanced: unset(advanced) } });
    },
  };
}
