import {
  CUSTOM_DATA_HEADER,
  createLicenseProxy,
  type AnyTokenPolicy,
  type LicenseProxyEvent,
  type LicenseProxyOptions,
  type ProxyCorsOptions,
} from '@multidrm/site-kit';
import { http, type HttpHandler } from 'msw';
import { LICENSE_PATHS } from '../handler.ts';
import { DEFAULT_LICENSE_BASE_URL, originOf } from './license-service-handlers.ts';
import { DEFAULT_SITE_BASE_URL } from './site-handlers.ts';

/** Options of {@link proxyHandlers}: the site, where it forwards and its decision. */
export interface ProxyHandlersOptions {
  /** The site's credentials: the same as in the license service's config. */
  site: { siteId: string; siteKey: string; accessKey: string };
  /** The site's origin; default https://site.test. */
  baseUrl?: string;
  /**
   * Where the proxy forwards: the license service's license URL, e.g. `service.licenseUrl` of
   * licenseServiceHandlers. Default https://license-service.test/ri/licenseManager.do.
   */
  licenseUrl?: string;
  /** The header the service reads the token from: the service config's customDataHeader. */
  header?: string;
  /** The user the default decision names; default "test-user". */
  userId?: string;
  /** The policy of the default decision; default `{ policy_version: 2 }` (a v2 token). */
  policy?: AnyTokenPolicy;
  /** The proxy's decision; default: allow `userId` with `policy`. */
  authorize?: LicenseProxyOptions['authorize'];
  cors?: ProxyCorsOptions;
  unwrapJson?: boolean;
  forwardHeaders?: string[];
  timeouts?: LicenseProxyOptions['timeouts'];
  /** The proxy's events (request, decision, upstream), as createLicenseProxy's onEvent. */
  onEvent?: (event: LicenseProxyEvent) => void;
}

/** The msw handlers of the site's license proxy, and the URL a player in proxy mode calls. */
export interface ProxyHandlers extends Array<HttpHandler> {
  /** `${baseUrl}/drm/license`: where a player in proxy mode sends `?drmType=&cid=` requests. */
  readonly proxyUrl: string;
}

/**
 * The site's license proxy as msw handlers: site-kit's own createLicenseProxy, forwarding to the
 * license service at `licenseUrl` (with licenseServiceHandlers beside it, msw answers that too), so
 * a player in proxy mode gets real tokens checked for real, and no token in the page.
 */
export function proxyHandlers(options: ProxyHandlersOptions): ProxyHandlers {
  const baseUrl = originOf(options.baseUrl ?? DEFAULT_SITE_BASE_URL, 'baseUrl');
  const userId = options.userId ?? 'test-user';
  const policy: AnyTokenPolicy = options.policy ?? { policy_version: 2 };
  const { site, cors, unwrapJson, forwardHeaders, timeouts, onEvent } = options;
  const proxy = createLicenseProxy({
    siteId: site.siteId,
    siteKey: site.siteKey,
    accessKey: site.accessKey,
    licenseUrl: options.licenseUrl ?? `${DEFAULT_LICENSE_BASE_URL}${LICENSE_PATHS[0]}`,
    header: options.header ?? CUSTOM_DATA_HEADER,
    authorize: options.authorize ?? (() => ({ allow: true, userId, policy })),
    ...(cors === undefined ? {} : { cors }),
    ...(unwrapJson === undefined ? {} : { unwrapJson }),
    ...(forwardHeaders === undefined ? {} : { forwardHeaders }),
    ...(timeouts === undefined ? {} : { timeouts }),
    ...(onEvent === undefined ? {} : { onEvent }),
  });
  const proxyUrl = `${baseUrl}/drm/license`;
  return Object.assign([http.all(proxyUrl, ({ request }) => proxy(request))], { proxyUrl });
}
