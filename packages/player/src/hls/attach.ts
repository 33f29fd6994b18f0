import type Hls from 'hls.js';
import type { HlsConfig, LoaderCallbacks, LoaderConfiguration, LoaderContext } from 'hls.js';
import { dataUrl } from '../engine/bytes.ts';
import { createEngine, resolveContentId } from '../engine/engine.ts';
import { serverCertificates } from '../engine/certificates.ts';
import { contentIdFromSkd, normaliseCertificate } from '../engine/fairplay.ts';
import type { LicenseAuthHandle } from '../engine/handle.ts';
import { drmTypeFor } from '../engine/key-systems.ts';
import { createLicenseSender } from '../engine/license-request.ts';
import { invalidOptions, resolveOptions, type EngineOptions } from '../engine/options.ts';
import { renewEachLoad } from '../engine/renewal.ts';

type LicenseXhrSetup = NonNullable<HlsConfig['licenseXhrSetup']>;
/** hls.js's key context: the session's key system and the key (`decryptdata.uri`: FairPlay's skd). */
export type HlsKeyContext = Parameters<LicenseXhrSetup>[2];

export interface HlsLicenseAuthOptions extends EngineOptions {
  /** The cid for a license request, when it depends on the key (FairPlay falls back to `skd://`). */
  getContentId?: (keyContext: HlsKeyContext) => string | undefined | Promise<string | undefined>;
}

const CONFIG_KEYS = ['emeEnabled', 'drmSystems', 'licenseXhrSetup', 'loader'] as const;
// The hooks of handles: an app's own hook composes with the handle's, a second handle does not.
const handleHooks = new WeakSet<LicenseXhrSetup>();

/**
 * Attaches tokens (or gateway custom data) to the license requests of an hls.js player: call it
 * after `new Hls()` and before `attachMedia()`. hls.js only lets a hook prepare its request
 * (`licenseXhrSetup`) and read its answer synchronously, so the handle sends each license request
 * itself (with `fetch`), reads the answer before the CDM, re-sends once with a fresh token where the
 * service's refusal says so, and hands hls.js the license (as a `data:` URL its request loads); a
 * refusal rejects the hook, which hls.js reports as an ERROR event whose `error` is the refusal.
 */
export function attachLicenseAuth(hls: Hls, options: HlsLicenseAuthOptions): LicenseAuthHandle {
  const opts = resolveOptions<HlsLicenseAuthOptions['getContentId']>(options);
  const config = (hls as Partial<Hls> | null)?.config;
  if (!config || typeof hls.on !== 'function') {
    throw invalidOptions('hls must be an Hls instance (hls.js 1.7 or later)');
  }
  if (hls.media) {
    throw invalidOptions(
      'attach before hls.attachMedia(): hls.js turns EME on when the media is attached',
    );
  }
  if (handleHooks.has(config.licenseXhrSetup!)) {
    throw invalidOptions(
      'this hls.js instance has a handle already: attach once, or detach() first',
    );
  }
  const engine = createEngine(opts);
  const send = createLicenseSender(engine);
  const appSetup = config.licenseXhrSetup;
  // Interstitial players are made from hls.userConfig: they get the handle's configuration too.
  const targets: Array<Partial<HlsConfig>> = [config, hls.userConfig];
  const previous = targets.map((target) =>
    Object.fromEntries(CONFIG_KEYS.filter((key) => key in target).map((key) => [key, target[key]])),
  );
  const drmSystems: Record<string, { licenseUrl: string; serverCertificateUrl?: string }> = {
    ...config.drmSystems,
  };
  for (const [keySystem, url] of Object.entries(engine.servers)) {
    const given = drmSystems[keySystem];
    drmSystems[keySystem] = { ...given, licenseUrl: given?.licenseUrl ?? url };
  }
  engine.checkHeader(
    Object.entries(drmSystems)
      .filter(([keySystem]) => drmTypeFor(keySystem, opts.drmTypes))
      .map(([, system]) => system.licenseUrl),
  );
  // hls.js loads each certificate from a URL: given bytes travel as a data: URL, and the loader
  // decodes what a certificate URL answers (a FairPlay service answers base64).
  const certificateUrls = new Set<string>();
  for (const { keySystem, certificate, url } of serverCertificates(opts)) {
    const system = drmSystems[keySystem];
    if (system && !system.serverCertificateUrl) {
      system.serverCertificateUrl = certificate ? dataUrl(certificate) : url;
      if (url) certificateUrls.add(url);
    }
  }
  const loader = class extends config.loader {
    override load(
      context: LoaderContext,
      loaderConfig: LoaderConfiguration,
      callbacks: LoaderCallbacks<LoaderContext>,
    ) {
      const { onSuccess, onError } = callbacks;
      super.load(
        context,
        loaderConfig,
        certificateUrls.has(context.url)
          ? {
              ...callbacks,
              onSuccess(response, stats, ...rest) {
                let data: ArrayBuffer;
                try {
                  data = normaliseCertificate(response.data as ArrayBuffer).buffer as ArrayBuffer;
                } catch (error) {
                  return onError({ code: 0, text: (error as Error).message }, ...rest, stats);
                }
                onSuccess({ ...response, data }, stats, ...rest);
              },
            }
          : callbacks,
      );
    }
  };

  // hls.js calls the hook a second time when it rejects: the second call fails the same way.
  const failures = new WeakMap<Uint8Array, unknown>();

  const licenseXhrSetup: LicenseXhrSetup = async (xhr, url, keyContext, challenge) => {
    const failed = failures.get(challenge);
    if (failed) throw failed;
    const { keySystem, decryptdata } = keyContext;
    const drmType = drmTypeFor(keySystem, opts.drmTypes);
    if (!drmType) return appSetup?.call(hls, xhr, url, keyContext, challenge);
    const session = engine.loads.current();
    try {
      // The app's own hook runs first, on a stand-in that keeps what it set for the request.
      const app = await appRequest(appSetup, hls, url, keyContext, challenge);
      const cid = await resolveContentId(
        opts,
        session,
        keySystem,
        () => opts.getContentId?.(keyContext),
        () => contentIdFromSkd(decryptdata?.uri),
      );
      const license = await send({
        ...app,
        keySystem,
        drmType,
        cid,
        licenseRequestType: keyContext.keyRequests?.[decryptdata?.uri]?.status ?? null,
        session,
      });
      xhr.open('POST', dataUrl(license), true);
    } catch (error) {
      // The app moved on: hls.js has let go of this key session, and a rejection would become a
      // fatal error (and stopLoad()) for the asset now loading.
      if (session.movedOn) return new Promise<never>(() => undefined);
      failures.set(challenge, error);
      throw error;
    }
  };
  handleHooks.add(licenseXhrSetup);
  // hls.js's own loader stays where the handle names no certificate URL.
  for (const target of targets) {
    Object.assign(target, {
      emeEnabled: true,
      drmSystems,
      licenseXhrSetup,
      ...(certificateUrls.size && { loader }),
    });
  }

  let attached = true;
  const prefetch: LicenseAuthHandle['prefetch'] = async (request = {}) =>
    attached && engine.prefetch(request, Object.keys(drmSystems), engine.loads.current());
  const detach = () => {
    if (!attached) return;
    attached = false;
    for (const [name, listener] of Object.entries(listeners)) events.off(name, listener);
    engine.destroy();
    if (config.licenseXhrSetup !== licenseXhrSetup) return;
    targets.forEach((target, i) => {
      for (const key of CONFIG_KEYS) delete target[key];
      Object.assign(target, previous[i]);
    });
  };
  const listeners = {
    hlsManifestLoading: () => {
      renew(engine.loads.started());
      if (opts.autoPrefetch) prefetch().catch(() => undefined);
    },
    // detachMedia() and transferMedia() (picture-in-picture, another element, an interstitial)
    // keep the source and its key sessions: its requests go on, and the key session they were
    // for has its license when the media is back.
    hlsDestroying: detach,
  };
  // A renewal refused for good: hls.js's fatal key system error, and the load stops.
  const renew = renewEachLoad(engine, {
    media: () => hls.media,
    send,
    refused(error) {
      (hls as unknown as { trigger(event: string, data: object): void }).trigger('hlsError', {
        type: 'keySystemError',
        details: 'keySystemLicenseRequestFailed',
        fatal: true,
        error,
      });
      hls.stopLoad();
    },
  });
  const events = hls as unknown as {
    on(name: string, listener: () => void): void;
    off(name: string, listener: () => void): void;
  };
  for (const [name, listener] of Object.entries(listeners)) events.on(name, listener);

  return {
    prefetch,
    load: engine.loads.name,
    clearTokens: engine.clearTokens,
    detach,
    on: engine.emitter.on,
  };
}

/** What an app's `licenseXhrSetup` asked for: the URL it opened, its headers, cookies, body. */
interface AppRequest {
  url: string;
  headers: Record<string, string>;
  credentials?: 'include';
  body: Uint8Array | string;
}

/**
 * Runs the app's own `licenseXhrSetup` on a stand-in XHR that records `open`, `setRequestHeader`
 * and `withCredentials`, so the request the handle sends carries all of it (and the challenge the
 * hook returns, if it returns one).
 */
async function appRequest(
  setup: LicenseXhrSetup | undefined,
  hls: Hls,
  url: string,
  keyContext: HlsKeyContext,
  challenge: Uint8Array,
): Promise<AppRequest> {
  const request: AppRequest = { url, headers: {}, body: challenge };
  if (!setup) return request;
  const recorder = {
    readyState: 0,
    withCredentials: false,
    open(_method: string, opened: string) {
      request.url = opened;
      recorder.readyState = 1;
    },
    setRequestHeader(name: string, value: string) {
      request.headers[name] = value;
    },
  };
  const returned = await setup.call(
    hls,
    recorder as unknown as Parameters<LicenseXhrSetup>[0],
    url,
    keyContext,
    challenge as Uint8Array<ArrayBuffer>,
  );
  if (recorder.withCredentials) request.credentials = 'include';
  if (returned) request.body = returned;
  return request;
}
