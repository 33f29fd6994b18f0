import { LicenseAuthError } from './errors.ts';
import { normaliseCertificate } from './fairplay.ts';
import type { ResolvedOptions } from './options.ts';
import { proxyUrl } from './proxy.ts';

/** A server certificate the app gave for a key system: the bytes, or where the player loads them. */
export interface ServerCertificate {
  keySystem: string;
  certificate?: Uint8Array;
  /** Absolute (resolved against the page). */
  url?: string;
}

/**
 * The certificates of `fairplay` (FairPlay's, required by its CDM) and `widevine` (the service
 * certificate that privacy mode encrypts the request with, which the service's samples load); in
 * proxy mode, an option given without either is loaded from the proxy.
 */
export function serverCertificates(opts: ResolvedOptions): ServerCertificate[] {
  const page = (globalThis as { location?: { href: string } }).location?.href;
  const given: Array<[string, ResolvedOptions['fairplay'], string]> = [
    ['com.apple.fps', opts.fairplay, 'FairPlay'],
    ['com.widevine.alpha', opts.widevine, 'Widevine'],
  ];
  const proxy = opts.licenseProxy;
  return given.flatMap(([keySystem, option, drmType]): ServerCertificate[] =>
    option?.certificate !== undefined
      ? [{ keySystem, certificate: normaliseCertificate(option.certificate) }]
      : option?.certificateUrl
        ? [{ keySystem, url: new URL(option.certificateUrl, page).href }]
        : option && proxy
          ? // Proxy mode: the proxy passes the certificate GET on to the service.
            [{ keySystem, url: proxyUrl(proxy, drmType) }]
          : [],
  );
}

/**
 * The certificate at `url` as the CDM takes it (DER; a service that answers base64 or PEM is
 * decoded); an HTTP error or a network failure is `FAIRPLAY_CERTIFICATE`.
 */
export const fetchCertificate = (opts: ResolvedOptions, url: string): Promise<Uint8Array> =>
  (opts.fetch ?? fetch)(url, {})
    .then((res) => {
      // An error page is not a certificate: the CDM would only fail on it later.
      if (!res.ok) throw new Error(`HTTP ${res.status} from ${url}`);
      return res.arrayBuffer();
    })
    .then(normaliseCertificate)
    .catch((error: unknown) => {
      throw error instanceof LicenseAuthError
        ? error
        : new LicenseAuthError(
            'FAIRPLAY_CERTIFICATE',
            `The server certificate did not load (${(error as Error)?.message ?? String(error)}): set the certificate itself, or a certificateUrl that serves it.`,
          );
    });
