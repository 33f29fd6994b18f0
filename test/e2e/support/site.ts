import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import {
  createCustomDataHandler,
  createGatewayHandler,
  createTokenHandler,
  createTokenIssuer,
  toNodeListener,
  type DrmType,
  type GatewayDecision,
  type GatewayEvent,
  type GatewayRequest,
  type SiteEndpointEvent,
  type SiteRefusal,
  type TokenGrant,
  type WebHandler,
} from '@multidrm/site-kit';
import { closeServer, listen } from './static-server.ts';

// A video service's site built with site-kit, as the end-to-end flows need it: each path is one
// behaviour of the site (allow, refuse, stale token, wrong key, ...), so one running site serves
// every scenario and the test names the behaviour by the URL it gives the player.

export interface SampleContent {
  cid: string;
  kid: string;
  key: string;
}

export const SAMPLE: SampleContent = JSON.parse(
  readFileSync(new URL('../../fixtures/content/keys.json', import.meta.url), 'utf8'),
) as SampleContent;

/**
 * A cid for which the emulator has no key: playing it proves the key came from the site
 * (external_key in the token, or PACKINFO in the XML gateway answer).
 */
export const EXTERNAL_KEY_CID = 'multidrm-sample-site-keyed';

export interface SiteCredentials {
  siteId: string;
  siteKey: string;
  accessKey: string;
}

/** Token mode and the JSON gateway. Demo values made for these tests, not secrets. */
export const SITE: SiteCredentials = {
  siteId: 'E2E',
  siteKey: 'e2e-site-key-0123456789abcdefghi',
  accessKey: 'e2e-access-key',
};
/** A site whose gateway speaks the XML (old specification) format. */
export const XML_SITE: SiteCredentials = {
  siteId: 'E2E-XML',
  siteKey: 'e2e-xml-site-key-0123456789abcde',
  accessKey: 'e2e-xml-access-key',
};
/** A site whose gateway is registered at an address where nothing listens. */
export const DOWN_SITE: SiteCredentials = {
  siteId: 'E2E-DOWN',
  siteKey: 'e2e-down-site-key-0123456789abcd',
  accessKey: 'e2e-down-access-key',
};

/** The site's own refusal code and message in the gateway-denies scenario. */
export const DENIED = { userId: 'member-lapsed', code: '4031', message: 'Subscription ended' };
/** Who the browser is signed in as (the `user` cookie stands in for a session). */
export const SIGNED_IN_USER = 'member-e2e';

export type SiteLogEntry =
  | { source: 'token' | 'custom-data'; path: string; event: SiteEndpointEvent }
  | { source: 'gateway'; path: string; event: GatewayEvent }
  /** A delayed request arrived (`held`) or its client went away before the answer (`client-gone`). */
  | {
      source: 'connection';
      /** Path and query, e.g. `/token?delay=hang`. */
      path: string;
      /** Numbers the delayed requests, so `held` and `client-gone` of one request pair up. */
      event: { type: 'held' | 'client-gone'; request: number };
    };

export interface RunningSite {
  url: string;
  /** Everything the site's handlers reported, in order. */
  log: SiteLogEntry[];
  close(): Promise<void>;
}

export interface SiteOptions {
  /** The page's origin: the token and custom data endpoints answer it with CORS and cookies. */
  playerOrigin: string;
}

function userOf(request: Request): string | undefined {
  for (const part of (request.headers.get('cookie') ?? '').split(';')) {
    const [name, value] = part.trim().split('=');
    if (name === 'user' && value) return decodeURIComponent(value);
  }
  return undefined;
}

const notSignedIn: SiteRefusal = {
  allow: false,
  status: 401,
  reason: 'Sign in to play this title.',
};
// The service's current token format (v2) by default; `/token-v1` keeps the main spec's v1 token.
const policy = {
  policy_version: 2,
  playback_policy: { persistent: false, license_duration: 600 },
} as const;
const policyV1 = { playback_policy: { limit: true, duration: 600 } };
/** `/token-streams`: at most two concurrent streams per user, renewed every second. */
export const STREAM_LIMIT = { maxStreams: 2, renewalSeconds: 1 } as const;
const streamPolicy = {
  policy_version: 2,
  playback_policy: {
    persistent: false,
    license_duration: 600,
    max_stream_per_user: STREAM_LIMIT.maxStreams,
    renewal_duration: STREAM_LIMIT.renewalSeconds,
  },
} as const;
const externalKey = {
  mpeg_cenc: [{ track_type: 'ALL' as const, key_id: SAMPLE.kid, key: SAMPLE.key }],
};
const externalKeyV1 = {
  mpeg_cenc: { key_id: SAMPLE.kid.toUpperCase(), key: SAMPLE.key.toUpperCase() },
};
/** A stale token: older than the emulator's 600 s window, as a site that caches tokens sends. */
const STALE_MS = 11 * 60_000;

/**
 * Starts the site. Every path also takes `?delay=<ms>` (the site takes that long before it answers)
 * or `?delay=hang` (it never answers; the request ends when the client gives up or the site closes).
 */
export async function startSite(options: SiteOptions): Promise<RunningSite> {
  const log: SiteLogEntry[] = [];
  const cors = { origins: [options.playerOrigin], credentials: true };
  const record = (source: 'token' | 'custom-data', path: string) => (event: SiteEndpointEvent) =>
    log.push({ source, path, event });

  const token = (path: string, grant: (user: string) => TokenGrant | SiteRefusal, site = SITE) =>
    createTokenHandler({
      ...site,
      cors,
      authorize: (request) => {
        const user = userOf(request);
        return user === undefined ? notSignedIn : grant(user);
      },
      onEvent: record('token', path),
    });

  const customData = (path: string, site: SiteCredentials, userId?: string) =>
    createCustomDataHandler({
      siteId: site.siteId,
      siteKey: site.siteKey,
      cors,
      authorize: (request) => {
        const user = userOf(request);
        return user === undefined ? notSignedIn : { allow: true, userId: userId ?? user };
      },
      onEvent: record('custom-data', path),
    });

  const gateway = (path: string, site: SiteCredentials, decide: GatewayHandlerDecide) =>
    createGatewayHandler({
      siteKey: site.siteKey,
      authorize: decide,
      onEvent: (event) => log.push({ source: 'gateway', path, event }),
    });

  // Stale tokens: what a site sends when it caches tokens past the window. `/token-expired` always
  // does; `/token-expired-once` only for the first request of each `?n=` (a test's own counter).
  const staleIssuer = createTokenIssuer(SITE);
  const staleOnce = new Set<string>();
  const staleToken =
    (path: string, always: boolean): WebHandler =>
    async (request) => {
      const fresh = await tokenHandlers[path]!(request.clone());
      const n = new URL(request.url).searchParams.get('n') ?? '';
      if (fresh.status !== 200 || (!always && staleOnce.has(n))) return fresh;
      staleOnce.add(n);
      const asked = (await request.json().catch(() => ({}))) as {
        cid?: string;
        drm_type?: DrmType;
      };
      const stale = staleIssuer.issue({
        cid: asked.cid ?? SAMPLE.cid,
        ...(asked.drm_type === undefined ? {} : { drmType: asked.drm_type }),
        userId: userOf(request) as string,
        policy,
        timestamp: new Date(Date.now() - STALE_MS),
      });
      return new Response(stale, { status: 200, headers: fresh.headers });
    };
  const tokenHandlers: Record<string, WebHandler> = {
    '/token-expired': token('/token-expired', (userId) => ({ allow: true, userId, policy })),
    '/token-expired-once': token('/token-expired-once', (userId) => ({
      allow: true,
      userId,
      policy,
    })),
  };

  const routes: Record<string, WebHandler> = {
    '/token': token('/token', (userId) => ({ allow: true, userId, policy })),
    '/token-v1': token('/token-v1', (userId) => ({ allow: true, userId, policy: policyV1 })),
    // `?viewer=<name>`: the signed-in user's viewer of that name, a user of its own to the service
    // (a test's streams do not count against another's).
    '/token-streams': createTokenHandler({
      ...SITE,
      cors,
      authorize: (request) => {
        const user = userOf(request);
        const viewer = new URL(request.url).searchParams.get('viewer');
        if (user === undefined) return notSignedIn;
        return { allow: true, userId: viewer ? `${user}-${viewer}` : user, policy: streamPolicy };
      },
      onEvent: record('token', '/token-streams'),
    }),
    '/token-external-key': token('/token-external-key', (userId) => ({
      allow: true,
      userId,
      policy: { ...policy, external_key: externalKey },
    })),
    '/token-refused': token('/token-refused', () => ({
      allow: false,
      status: 403,
      reason: 'Your plan does not include this title.',
    })),
    '/token-expired': staleToken('/token-expired', true),
    '/token-expired-once': staleToken('/token-expired-once', false),
    '/token-wrong-access-key': token(
      '/token-wrong-access-key',
      (userId) => ({ allow: true, userId, policy }),
      { ...SITE, accessKey: 'an-outdated-access-key' },
    ),
    '/custom-data': customData('/custom-data', SITE),
    '/custom-data-lapsed': customData('/custom-data-lapsed', SITE, DENIED.userId),
    '/custom-data-xml': customData('/custom-data-xml', XML_SITE),
    '/custom-data-down': customData('/custom-data-down', DOWN_SITE),
    '/gateway/json': gateway('/gateway/json', SITE, (request) =>
      request.user_id === DENIED.userId
        ? { allow: false, error_code: DENIED.code, error_message: DENIED.message }
        : { allow: true, ...policyV1 },
    ),
    '/gateway/xml': gateway('/gateway/xml', XML_SITE, () => ({
      allow: true,
      ...policyV1,
      external_key: externalKeyV1,
    })),
  };

  const listeners = new Map(Object.entries(routes).map(([path, h]) => [path, toNodeListener(h)]));
  const hanging = new Set<() => void>();
  let closing = false;
  let delayed = 0;
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://site');
    const listener = listeners.get(url.pathname);
    if (listener === undefined) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('No such endpoint.\n');
      return;
    }
    const delay = req.method === 'OPTIONS' ? null : url.searchParams.get('delay');
    if (delay === null) return void listener(req, res);
    const where = { source: 'connection' as const, path: url.pathname + url.search };
    const request = ++delayed;
    log.push({ ...where, event: { type: 'held', request } });
    let release = () => {};
    const wait = new Promise<void>((done) => {
      release = done;
      if (delay !== 'hang') setTimeout(done, Number(delay)).unref();
    });
    hanging.add(release);
    res.once('close', () => {
      if (!res.writableEnded) log.push({ ...where, event: { type: 'client-gone', request } });
      release();
    });
    void wait.then(() => {
      hanging.delete(release);
      if (!closing && !res.destroyed) void listener(req, res);
    });
  });
  const url = await listen(server);
  return {
    url,
    log,
    async close() {
      closing = true;
      for (const release of hanging) release();
      await closeServer(server);
    },
  };
}

type GatewayHandlerDecide = (request: GatewayRequest) => GatewayDecision;
