import type { EmulatorConfig } from './config.ts';
import { EmulatorError } from './errors.ts';
import type { Answer, Call } from './http/exchange.ts';
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

export function certificateAnswer(call: Call, config: EmulatorConfig): Answer {
  const path = call.path;
  const siteId = new URLSearchParams(call.query).get('siteId');
  if (siteId === null || siteId === '') {
    throw new EmulatorError(
      'MISSING_PARAMETER',
      `${path} needs the siteId query parameter: ${path}?siteId=<your site ID>.`,
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
  if (path === '/ri/widevineCert.do') {
    return { status: 200, headers: binary, body: standInWidevineCertificate() };
  }
  const der = standInFairPlayCertificate();
  if (path === '/ri/fpsCert.do') return { status: 200, headers: binary, body: der };
  return {
    status: 200,
    headers: { ...headers, 'content-type': 'text/plain; charset=utf-8' },
    body: bytesToBase64(der),
  };
}
