// The license proxy between a player and the real emulator, both on real node:http servers. A tap
// in front of the emulator records what reaches the service (method, URL, headers, body) and passes
// every request on to the emulator's own HTTP server unchanged.
import type { IncomingMessage } from 'node:http';
import { startEmulator, type RunningEmulator } from '@multidrm/emulator';
import { createLicenseProxy, toNodeListener, type LicenseProxyOptions } from '@multidrm/site-kit';
import {
  listen as serve,
  type TestServer as Served,
} from '../../packages/site-kit/test/http/server.ts';

// Made up for these tests: a site key is 32 ASCII characters.
export const SITE = {
  siteId: 'PROXYSITE',
  siteKey: 'p9Rt2Wx5Zq8Lm3Nv6Bc1Df4Gh7Jk0As2',
  accessKey: 'proxy-site-access-key',
};
export const CID = 'movie-1';
export const KID = '00112233445566778899aabbccddeeff';
export const KEY = '0f1e2d3c4b5a69788796a5b4c3d2e1f0';
export const HEADER = 'x-drm-custom-data';
export const PLAYER_ORIGIN = 'https://player.example';

/** The ClearKey license request a browser's CDM sends (what the emulator issues licenses for). */
export const clearKeyRequest = () =>
  JSON.stringify({ kids: [Buffer.from(KID, 'hex').toString('base64url')], type: 'temporary' });

// The ephemeral-port server is site-kit's own test helper, not a copy of it.
export { serve, type Served };

export interface Arrival {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: Buffer;
}

const HOP = ['host', 'connection', 'content-length', 'transfer-encoding', 'keep-alive'];

export interface Upstream {
  emulator: RunningEmulator;
  /** The tap's license URL: what the proxy is configured with. */
  licenseUrl: string;
  /** Every request that reached the service, in order. */
  arrivals: Arrival[];
  /** The service's answers, as it sent them, in order. */
  answers: Buffer[];
  /** Forgets the arrivals and answers recorded and the faults injected: each test starts clean. */
  reset(): void;
  close(): Promise<void>;
}

/** The real emulator with the test site and content key, behind a recording tap. */
export async function startUpstream(): Promise<Upstream> {
  const emulator = await startEmulator({
    sites: [SITE],
    keys: { [CID]: { kid: KID, key: KEY } },
    customDataHeader: HEADER,
  });
  const arrivals: Arrival[] = [];
  const answers: Buffer[] = [];
  const tap = await serve((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      arrivals.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(req.headers)) {
        if (typeof value === 'string' && !HOP.includes(name)) headers[name] = value;
      }
      fetch(`${emulator.url}${req.url}`, {
        method: req.method ?? 'GET',
        headers,
        ...(body.length > 0 ? { body } : {}),
      }).then(
        async (answer) => {
          const bytes = Buffer.from(await answer.arrayBuffer());
          answers.push(bytes);
          const out: Record<string, string> = { 'content-length': String(bytes.length) };
          const type = answer.headers.get('content-type');
          if (type !== null) out['content-type'] = type;
          res.writeHead(answer.status, out).end(bytes);
        },
        () => res.destroy(),
      );
    });
  });
  return {
    emulator,
    licenseUrl: `${tap.url}/ri/licenseManager.do`,
    arrivals,
    answers,
    reset() {
      arrivals.length = 0;
      answers.length = 0;
      emulator.faults.clear();
    },
    async close() {
      await tap.close();
      await emulator.close();
    },
  };
}

/** A signed-in user is the cookie `session=<user id>`; anyone else is refused with 401. */
export const sessionAuthorize: LicenseProxyOptions['authorize'] = (request) => {
  const user = /(?:^|;\s*)session=([\w-]+)/.exec(request.headers.get('cookie') ?? '')?.[1];
  if (user === undefined) return { allow: false, status: 401, reason: 'Sign in first.' };
  if (user === 'banned') return { allow: false, status: 403, reason: 'Not entitled.' };
  return { allow: true, userId: user };
};

/**
 * How the proxy is served: `node` is toNodeListener's direct path from the node message (what a
 * Node site gets); `web` the web handler itself, given a web Request and answering a Response (what
 * Workers, Deno and any other adapter get). Both must behave alike, so the proxy's tests run through
 * each (`describe.each(PROXY_PATHS)` with `useProxyPath`).
 */
export type ProxyPath = 'node' | 'web';
export const PROXY_PATHS: [string, ProxyPath][] = [
  ['node path (from the node message)', 'node'],
  ['web path (Request and Response)', 'web'],
];
let path: ProxyPath = 'node';

/** The path the proxies `startProxy` makes from now on are served through. */
export function useProxyPath(next: ProxyPath): void {
  path = next;
}

/** site-kit's proxy on node:http through the node adapter (see ProxyPath), upstream the tap. */
export function startProxy(
  upstream: Upstream,
  options: Partial<LicenseProxyOptions> = {},
): Promise<Served> {
  const proxy = createLicenseProxy({
    ...SITE,
    licenseUrl: upstream.licenseUrl,
    header: HEADER,
    authorize: sessionAuthorize,
    cors: { origins: [PLAYER_ORIGIN] },
    ...options,
  });
  // A handler site-kit did not make (this wrapper) is served as a web handler proper.
  return serve(toNodeListener(path === 'node' ? proxy : (request) => proxy(request)));
}

/** POSTs a license request to the proxy; `query` names the DRM and cid. */
export async function postLicense(
  proxyUrl: string,
  query: string,
  init: { body?: string | Uint8Array<ArrayBuffer>; headers?: Record<string, string> } = {},
): Promise<{ status: number; headers: Headers; text: string; json: () => unknown }> {
  const response = await fetch(`${proxyUrl}/drm/license${query}`, {
    method: 'POST',
    body: init.body ?? clearKeyRequest(),
    headers: { cookie: 'session=user-1', ...init.headers },
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, text, json: () => JSON.parse(text) };
}
