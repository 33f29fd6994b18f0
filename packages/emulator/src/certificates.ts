import type { EmulatorConfig } from './config.ts';
import { EmulatorError } from './errors.ts';
import { standInFairPlayCertificate, standInWidevineCertificate } from './stand-in.ts';
import { bytesToBase64 } from './web/bytes.ts';

/**
 * The service's certificate endpoints (GET, `?siteId=`), answered with stand-ins (see stand-in.ts):
 * the Widevine service certificate (binary), the FairPlay certificate as base64 text
 * (fpsKeyManager.do) and as DER (fpsCert.do).
 */
export const CERTIFICATE_PATHS = [
  '/ri/widevineCert.do',
  '/ri/fpsKeyManager.do',
  '/ri/fpsCert.do',
] as const;

export const isCertificatePath = (path: string): boolean =>
  (CERTIFICATE_PATHS as readonly string[]).includes(path);

export function certificateResponse(request: Request, config: EmulatorConfig): Response {
  const url = new URL(request.url);
  const siteId = url.searchParams.get('siteId');
  if (siteId === null || siteId === '') {
    throw new EmulatorError(
      'MISSING_PARAMETER',
      `${url.pathname} needs the siteId query parameter: ${url.pathname}?siteId=<your site ID>.`,
      { parameter: 'siteId' },
      { field: 'siteId' },
    );
  }
  if (!config.sites.some((site) => site.siteId === siteId)) {
    throw new EmulatorError(
      'UNKNOWN_SITE',
      `No configured site has the site ID "${siteId.slice(0, 40)}": add it to "sites" in the emulator config.`,
      { siteId: siteId.slice(0, 40) },
      { field: 'siteId' },
    );
  }
  const headers = { 'cache-control': 'no-store' };
  const binary = { ...headers, 'content-type': 'application/octet-stream' };
  if (url.pathname === '/ri/widevineCert.do') {
    return new Response(standInWidevineCertificate(), { headers: binary });
  }
  const der = standInFairPlayCertificate();
  if (url.pathname === '/ri/fpsCert.do') return new Response(der, { headers: binary });
  return new Response(bytesToBase64(der), {
    headers: { ...headers, 'content-type': 'text/plain; charset=utf-8' },
  });
}
