import type { BufferLike } from './bytes.ts';
import { LicenseAuthError, TokenFetchError } from './errors.ts';
import { readJsonObject } from './service-error.ts';

/**
 * Proxy mode (`licenseProxy`): the site's license proxy (site-kit's createLicenseProxy) decides
 * from the page's cookies and adds the token itself, so the player names what it asks for in the
 * query: `<proxy>?drmType=<widevine|playready|fairplay|...>&cid=<cid>` (no cid: a certificate GET).
 * Set, not appended: a request sent again names each once (the proxy refuses repeated names).
 */
export function proxyUrl(proxy: string, drmType: string, cid?: string): string {
  const url = new URL(proxy, (globalThis as { location?: { href: string } }).location?.href);
  url.searchParams.set('drmType', drmType.toLowerCase());
  if (cid !== undefined) url.searchParams.set('cid', cid);
  return url.href;
}

/**
 * The proxy's own failure in a non-2xx answer, `{"code":"SITE_REFUSED","message":"..."}`, as the
 * error the same failure has without a proxy: the site's decision (`SITE_*`: refused, failed, timed
 * out) a `TokenFetchError` like the token endpoint's (401/403: the user must sign in), the rest
 * (the service unreachable, a bad request) a `LICENSE_REQUEST_FAILED` like a license server's.
 * `undefined` for any other answer (the service's refusals are relayed as they came).
 */
export function proxyFailure(
  data: BufferLike | string | null | undefined,
  status: number,
  url: string,
  about: { drmType: string; cid: string },
): LicenseAuthError | undefined {
  const body = readJsonObject(data);
  const code = body?.['code'];
  const message = body?.['message'];
  if (!/^[A-Z_]+$/.test(code as string) || typeof message !== 'string') return;
  const reason = `${code}: ${message}`;
  const said = `The license proxy ${url} answered HTTP ${status} (${reason}) for the ${about.drmType} license of cid "${about.cid}": ${status === 401 || status === 403 ? 'the user must be signed in and allowed to play it' : "check the site's logs and the license service"}.`;
  return /^SITE_/.test(code as string)
    ? new TokenFetchError('TOKEN_FETCH_FAILED', { url, status, reason }, said)
    : new LicenseAuthError('LICENSE_REQUEST_FAILED', said);
}
