import type {
  CertificateRequest,
  LicenseRequest,
  MediaPlayerClass,
  ProtectionDataSet,
} from 'dashjs';
import { dataUrl, toBase64 } from '../engine/bytes.ts';
import { fetchCertificate, serverCertificates } from '../engine/certificates.ts';
import { createEngine, resolveContentId } from '../engine/engine.ts';
import type { LicenseAuthHandle } from '../engine/handle.ts';
import { renewEachLoad } from '../engine/renewal.ts';
import { drmTypeFor, isFairPlay, LICENSE_MESSAGES } from '../engine/key-systems.ts';
import { createLicenseSender } from '../engine/license-request.ts';
import { invalidOptions, resolveOptions, type EngineOptions } from '../engine/options.ts';

/** Options of the dash.js adapter: the common options (FairPlay too, with dash.js 5.2's KeySystemFairPlay) plus dash.js's own. */
export interface DashLicenseAuthOptions extends EngineOptions {
  /** The cid for a license request, when it depends on the request. */
  getContentId?: (request: LicenseRequest) => string | undefined | Promise<string | undefined>;
  /**
   * What dash.js gets through `setProtectionData` besides each key system's `serverURL` (from
   * `licenseServer`): robustness, `httpRequestHeaders`, ... (dash.js keeps one set, so the handle
   * sets it whole).
   */
  protectionData?: ProtectionDataSet;
}

/** dash.js's code for a failed license request (ProtectionErrors.MEDIA_KEY_MESSAGE_LICENSER_ERROR_CODE). */
const LICENSER_ERROR = 111;

/**
 * Attaches tokens (or gateway custom data) to the license requests of a dash.js player: call it
 * before `initialize()` or `attachSource()`. dash.js retries a license request with the headers
 * of the first attempt and stalls when a filter rejects, so the handle sends each license request
 * itself from the request filter (with `fetch`), reads the answer before the CDM, re-sends once
 * with a fresh token where the service's refusal says so, and points dash.js's request at the
 * license (a `data:` URL); a failure becomes dash.js's `error` event (code 111) whose `error.data`
 * is this package's error. FairPlay (dash.js 5.2's KeySystemFairPlay) needs the `fairplay` option
 * for its certificate; its cid comes from `contentId` or `load()` (DASH has no skd:// URI).
 */
export function attachLicenseAuth(
  player: MediaPlayerClass,
  options: DashLicenseAuthOptions,
): LicenseAuthHandle {
  const opts = resolveOptions<DashLicenseAuthOptions['getContentId']>(options, (o) => [
    o['protectionData'] !== undefined &&
      (typeof o['protectionData'] !== 'object' || o['protectionData'] === null) &&
      'protectionData must be an object',
  ]);
  if (typeof player?.registerLicenseRequestFilter !== 'function') {
    throw invalidOptions('player must be a dash.js MediaPlayer (dashjs 5.2 or later)');
  }
  const engine = createEngine(opts);
  const send = createLicenseSender(engine);
  // dash.js 5.2 plays FairPlay (KeySystemFairPlay) where the browser has it: its server only with
  // the fairplay option, which brings the certificate its CDM needs.
  const servers = Object.entries(engine.servers).filter(
    ([keySystem]) => !isFairPlay(keySystem) || opts.fairplay,
  );
  engine.checkHeader(servers.map(([, url]) => url));
  const certificates: ProtectionDataSet = {};
  const certificateUrls = new Set<string>();
  for (const { keySystem, certificate, url } of serverCertificates(opts)) {
    if (url) certificateUrls.add(url);
    certificates[keySystem] = certificate
      ? { serverCertificate: toBase64(certificate) }
      : { certUrls: [url as string] };
  }
  // dash.js keeps one set of protection data: an app's later setProtectionData() gets the
  // servers the handle set merged under its own, as the app's first set did.
  const setProtectionData = player.setProtectionData;
  const merged = (given: ProtectionDataSet | null | undefined): ProtectionDataSet => {
    const out: ProtectionDataSet = { ...given };
    for (const [keySystem, url] of servers) {
      out[keySystem] = { serverURL: url, ...certificates[keySystem], ...out[keySystem] };
    }
    return out;
  };
  player.setProtectionData = (value) => setProtectionData.call(player, merged(value));
  const protectionData = merged(options.protectionData);
  player.setProtectionData(protectionData);

  let keySystem: string | undefined;
  const configured = Object.keys(protectionData).filter((ks) => drmTypeFor(ks, opts.drmTypes));

  // A failed filter would stall dash.js without an error: the error event says why, and the
  // request is left unanswered (dash.js would only report it once more, without the cause).
  const fail = (error: unknown) => {
    player.trigger(
      'error' as never,
      { error: { code: LICENSER_ERROR, message: (error as Error).message, data: error } },
      {},
    );
    return new Promise<never>(() => undefined);
  };

  const requestFilter = async (request: LicenseRequest): Promise<void> => {
    const selected = keySystem ?? (configured.length === 1 ? configured[0]! : undefined);
    const drmType = selected && drmTypeFor(selected, opts.drmTypes);
    if (!drmType || !LICENSE_MESSAGES.includes(request.messageType)) return;
    const session = engine.loads.current();
    try {
      const cid = await resolveContentId(
        opts,
        session,
        selected!,
        () => opts.getContentId?.(request),
        () => null,
      );
      const license = await send({
        keySystem: selected!,
        drmType,
        cid,
        url: request.url,
        body: request.data,
        headers: request.headers,
        credentials: request.withCredentials ? 'include' : undefined,
        licenseRequestType: request.messageType,
        session,
      });
      // dash.js adds CMCD after the filters ran (query mode: to the URL, which would break the
      // data: URL): the request keeps what the handle set, which goes to no server.
      const answered = dataUrl(license);
      request.withCredentials = false;
      Object.defineProperties(request, {
        url: { get: () => answered, set() {} },
        headers: { get: () => ({}), set() {} },
      });
    } catch (error) {
      // When the app moved on, there is nothing to say.
      await (session.movedOn ? new Promise(() => undefined) : fail(error));
    }
  };
  // A FairPlay service answers its certificate as base64: the handle loads the certificates it
  // names and hands dash.js the DER bytes.
  const certificateFilter = async (request: CertificateRequest): Promise<void> => {
    if (!certificateUrls.has(request.url)) return;
    const certificate = await fetchCertificate(opts, request.url).catch(fail);
    request.url = dataUrl(certificate);
  };

  let attached = true;
  const prefetch: LicenseAuthHandle['prefetch'] = async (request = {}) =>
    attached &&
    engine.prefetch(
      { ...request, keySystem: request.keySystem ?? keySystem },
      configured,
      engine.loads.current(),
    );
  const listeners: Record<string, (event: { data?: unknown }) => void> = {
    public_keySystemSelected: ({ data }) => {
      const access = data as {
        selectedSystemString?: string;
        keySystem?: { systemString: string };
      };
      keySystem = access?.selectedSystemString ?? access?.keySystem?.systemString ?? keySystem;
    },
    manifestLoadingStarted: () => {
      renew(engine.loads.started());
      if (opts.autoPrefetch) prefetch().catch(() => undefined);
    },
    // dash.js tears the stream down before it loads the next source, and on reset().
    streamTeardownComplete: () => engine.loads.ended('The dash.js stream was torn down.'),
  };
  // A renewal refused for good: dash.js's error event, as for a refused license, and a reset.
  const renew = renewEachLoad(engine, {
    send,
    media: () => (player.isReady() ? player.getVideoElement() : undefined),
    refused(error) {
      void fail(error);
      player.reset();
    },
  });
  const events = player as unknown as {
    on(name: string, listener: (event: { data?: unknown }) => void): void;
    off(name: string, listener: (event: { data?: unknown }) => void): void;
  };
  for (const [name, listener] of Object.entries(listeners)) events.on(name, listener);
  const register = () => {
    player.registerLicenseRequestFilter(requestFilter);
    player.registerCertificateRequestFilter(certificateFilter);
  };
  register();
  // reset() drops the app's filters and protection data: the handle's go back on, so that the
  // next initialize() sends its license requests with tokens.
  const reset = player.reset;
  player.reset = () => {
    reset.call(player);
    keySystem = undefined;
    register();
    player.setProtectionData(protectionData);
  };

  return {
    prefetch,
    load: engine.loads.name,
    clearTokens: engine.clearTokens,
    on: engine.emitter.on,
    detach() {
      if (!attached) return;
      attached = false;
      player.unregisterLicenseRequestFilter(requestFilter);
      player.unregisterCertificateRequestFilter(certificateFilter);
      for (const [name, listener] of Object.entries(listeners)) events.off(name, listener);
      Object.assign(player, { setProtectionData, reset });
      engine.destroy();
    },
  };
}
