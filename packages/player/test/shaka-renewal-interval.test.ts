// Proxy mode on Shaka (issue #37): the proxy's license answer carries the renewal interval its
// token's policy set, and the Shaka adapter's response filter hands it to the engine, as the other
// adapters' license sender does (test/renewal.test.ts). The real engine and filters; the request and
// answer as Shaka's networking engine gives them to the filters (header names in lower case).
import { describe, expect, test } from 'vitest';
import { createEngine } from '../src/engine/engine.ts';
import { resolveOptions } from '../src/engine/options.ts';
import type { LicenseAuthEvents } from '../src/shaka/events.ts';
import { createLicenseFilters } from '../src/shaka/license-filters.ts';
import {
  RequestType,
  type NetworkingEngine,
  type RequestFilter,
  type ResponseFilter,
  type ShakaRequest,
  type ShakaResponse,
} from '../src/shaka/shaka-types.ts';

const PROXY = 'http://localhost:3000/drm/license';

function filtersOver(options: {
  licenseProxy?: string;
  licenseServer?: string;
  getToken?: () => Promise<string>;
}) {
  const engine = createEngine<LicenseAuthEvents>(
    resolveOptions({ contentId: 'movie-1', ...options }),
  );
  const session = engine.loads.started();
  // The networking engine the filters go on: no request is sent through it in this test.
  const filters: { request?: RequestFilter; response?: ResponseFilter } = {};
  const net = {
    request: () => {
      throw new Error('no re-send in this test');
    },
    registerRequestFilter: (filter: RequestFilter) => (filters.request = filter),
    registerResponseFilter: (filter: ResponseFilter) => (filters.response = filter),
  } as unknown as NetworkingEngine;
  createLicenseFilters(engine, async () => session, net, new Set());
  /** One license request through the filters, answered with `headers`. */
  const exchange = async (headers: Record<string, string>) => {
    const request = {
      uris: [options.licenseProxy ?? options.licenseServer ?? ''],
      method: 'POST',
      body: new Uint8Array([1]),
      headers: {},
      allowCrossSiteCredentials: false,
      retryParameters: { maxAttempts: 2 },
      attempt: 0,
      licenseRequestType: 'license-request',
      drmInfo: { keySystem: 'org.w3.clearkey' },
    } as unknown as ShakaRequest;
    await filters.request!(RequestType.LICENSE, request, undefined);
    const response = {
      uri: request.uris[0],
      originalUri: request.uris[0],
      originalRequest: request,
      status: 200,
      data: new TextEncoder().encode('{"keys":[]}'),
      headers,
    } as unknown as ShakaResponse;
    await filters.response!(RequestType.LICENSE, response, undefined);
  };
  return { engine, exchange };
}

describe("the Shaka adapter's license answer in proxy mode", () => {
  test('sets the renewal interval from its x-renewal-interval header', async () => {
    const { engine, exchange } = filtersOver({ licenseProxy: PROXY });
    expect(engine.renewalIntervalSec()).toBeUndefined();
    await exchange({ 'content-type': 'application/json', 'x-renewal-interval': '30' });
    expect(engine.renewalIntervalSec()).toBe(30);
    // An answer without it keeps the interval the proxy announced.
    await exchange({ 'content-type': 'application/json' });
    expect(engine.renewalIntervalSec()).toBe(30);
    engine.destroy();
  });

  test('ignores it from a license server the player calls itself, and a value that is no whole number', async () => {
    const direct = filtersOver({
      licenseServer: 'http://127.0.0.1:8443/license',
      getToken: async () => 'token-1',
    });
    await direct.exchange({ 'x-renewal-interval': '30' });
    expect(direct.engine.renewalIntervalSec()).toBeUndefined();
    direct.engine.destroy();
    const proxied = filtersOver({ licenseProxy: PROXY });
    await proxied.exchange({ 'x-renewal-interval': '2.5' });
    expect(proxied.engine.renewalIntervalSec()).toBeUndefined();
    proxied.engine.destroy();
  });
});
