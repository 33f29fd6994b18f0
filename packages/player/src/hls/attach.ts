import type Hls from 'hls.js';
import type { HlsConfig } from 'hls.js';
import { toBase64 } from '../engine/bytes.ts';
import { createEngine, resolveContentId } from '../engine/engine.ts';
import { LicenseAuthError } from '../engine/errors.ts';
import { contentIdFromSkd, normaliseCertificate } from '../engine/fairplay.ts';
import type { LicenseAuthHandle } from '../engine/handle.ts';
import { drmTypeFor, isFairPlay } from '../engine/key-systems.ts';
import { createLicenseSender, licenseDataUrl } from '../engine/license-request.ts';
import { invalidOptions, resolveOptions, type EngineOptions } from '../engine/options.ts';

type LicenseXhrSetup = NonNullable<HlsConfig['licenseXhrSetup']>;
/** hls.js's key context: the session's key system and the key (`decryptdata.uri`: FairPlay's skd). */
export type HlsKeyContext = Parameters<LicenseXhrSetup>[2];

export interface HlsLicenseAuthOptions extends EngineOptions {
  /** The cid for a license request, when it depends on the key (FairPlay falls back to `skd://`). */
  getContentId?: (keyContext: HlsKeyContext) => string | undefined | Promise<string | undefined>;
}

const CONFIG_KEYS = ['emeEnabled', 'drmSystems', 'licenseXhrSetup'] as const;

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
  if (config.licenseXhrSetup) {
    throw invalidOptions(
      'hls.config.licenseXhrSetup is set already: the handle sends the license requests itself (attach once, or detach() first)',
    );
  }
  const engine = createEngine(opts);
  const sender = createLicenseSender(engine);
  const previous = Object.fromEntries(CONFIG_KEYS.map((key) => [key, config[key]]));
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
  const { certificate, certificateUrl } = opts.fairplay ?? {};
  for (const [keySystem, system] of Object.entries(drmSystems)) {
    if (isFairPlay(keySystem) && !system.serverCertificateUrl) {
      // hls.js loads the certificate from a URL: given bytes travel as a data: URL.
      system.serverCertificateUrl =
        certificate !== undefined
          ? `data:application/octet-stream;base64,${toBase64(normaliseCertificate(certificate))}`
          : certificateUrl;
    }
  }
  const getContentId = opts.getContentId;
  // hls.js calls the hook a second time when it rejects: the second call fails the same way.
  const failures = new WeakMap<Uint8Array, unknown>();

  const licenseXhrSetup: LicenseXhrSetup = async (xhr, url, keyContext, challenge) => {
    const failed = failures.get(challenge);
    if (failed) throw failed;
    const { keySystem, decryptdata } = keyContext;
    const drmType = drmTypeFor(keySystem, opts.drmTypes);
    if (!drmType) return;
    try {
      const cid = await resolveContentId(
        opts,
        keySystem,
        () => getContentId?.(keyContext),
        () => contentIdFromSkd(decryptdata?.uri),
      );
      const license = await sender.send({
        keySystem,
        drmType,
        cid,
        url,
        body: challenge,
        licenseRequestType: keyContext.keyRequests?.[decryptdata?.uri]?.status ?? null,
      });
      xhr.open('POST', licenseDataUrl(license), true);
    } catch (error) {
      failures.set(challenge, error);
      throw error;
    }
  };
  Object.assign(config, { emeEnabled: true, drmSystems, licenseXhrSetup });

  let attached = true;
  const prefetch: LicenseAuthHandle['prefetch'] = async (request = {}) =>
    attached && engine.prefetch(request, Object.keys(drmSystems));
  const listeners = {
    hlsManifestLoading: () => {
      if (opts.autoPrefetch) prefetch().catch(() => undefined);
    },
    // Detaching the media (or loading other content) must not wait for a slow site.
    hlsMediaDetaching: () =>
      sender.abortAll(new LicenseAuthError('ABORTED', 'The media was detached from hls.js.')),
    hlsDestroying: () => detach(),
  };
  const events = hls as unknown as {
    on(name: string, listener: () => void): void;
    off(name: string, listener: () => void): void;
  };
  for (const [name, listener] of Object.entries(listeners)) events.on(name, listener);

  const detach = () => {
    if (!attached) return;
    attached = false;
    for (const [name, listener] of Object.entries(listeners)) events.off(name, listener);
    sender.abortAll(new LicenseAuthError('ABORTED', 'The license auth handle was detached.'));
    engine.destroy();
    if (config.licenseXhrSetup === licenseXhrSetup) Object.assign(config, previous);
  };
  return { prefetch, detach, on: engine.emitter.on };
}
