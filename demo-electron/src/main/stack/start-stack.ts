import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { startEmulator, type FlowEvents } from '@multidrm/emulator';
import { STREAM_GRACE_SECONDS, type DemoApi } from '../../shared/contract.ts';
import { createDemoApi } from './api.ts';
import { catalogue, emulatorKeys, readContentKeys } from './catalogue.ts';
import { contentSecurityPolicy, securityHeaders } from './csp.ts';
import { createHttpApi } from './http-api.ts';
import { listen, type Listening } from './listen.ts';
import {
  createRealServiceStore,
  DEFAULT_HEADER,
  type RealServiceSettings,
} from './real-service.ts';
import { PROXY_EVENTS_PATH } from '../../shared/proxy-events.ts';
import { createProxyLog } from './proxy-log.ts';
import { createDemoSite, SITE_PATHS, type SiteCredentials, type SiteSession } from './site.ts';
import { APP_ORIGIN } from '../app-protocol.ts';
import { createAppGuard } from './app-guard.ts';
import { createStaticHandler, MEDIA_TYPES } from './static-files.ts';

export interface DemoStackOptions {
  /** The built renderer (vite's output: index.html and assets). */
  rendererDir: string;
  /** The sample content: each player's manifest (PLAYER_MANIFESTS), segments and keys.json. */
  contentDir: string;
  /** How the renderer reaches main: the preload (electron) or the HTTP API (web). */
  shell: 'electron' | 'web';
  /** Port of the app (page + site); default 0, an ephemeral one. */
  port?: number;
  /** Initial "real service" settings, e.g. from the environment. */
  realService?: Partial<RealServiceSettings>;
}

export interface DemoStack {
  /**
   * The origin of the page and the site: http://127.0.0.1:<port> in the web mode, the app's own
   * scheme (multidrm-demo://app) in Electron.
   */
  url: string;
  /** Where to open the page: in the web mode it carries this run's launch key (see app-guard.ts). */
  openUrl: string;
  /** The loopback server: the whole app in the web mode, only the gateways in Electron. */
  loopbackUrl: string;
  /** The page and the site as one web handler (Electron's protocol handler serves it), checks included. */
  handle(request: Request): Promise<Response>;
  emulatorUrl: string;
  contentUrl: string;
  /** The contract's calls, for the Electron IPC bridge (the web mode serves them under /api). */
  api: DemoApi;
  /** The emulator's flow events. */
  events: FlowEvents;
  /** The page's Content-Security-Policy, sent as a header with every page and asset. */
  csp(): string;
  close(): Promise<void>;
}

const secret = (bytes: number) => randomBytes(bytes).toString('base64url');

/**
 * Starts the whole demo on loopback: the site (built with site-kit) serving the page, the license
 * service emulator, and the sample content, each on an ephemeral port. Keys are made fresh here
 * and never leave this process.
 */
export async function startDemoStack(options: DemoStackOptions): Promise<DemoStack> {
  const sample = await readContentKeys(options.contentDir);
  // 24 random bytes are 32 base64url characters: an AES-256 site key of 32 bytes.
  const siteKey = secret(24);
  const accessKey = secret(16);
  const json: SiteCredentials = { siteId: 'DEMO', siteKey, accessKey };
  const xml: SiteCredentials = { siteId: 'DEMOXML', siteKey, accessKey };
  const session: SiteSession = { userId: undefined, policy: {} };
  const realService = createRealServiceStore(options.realService);
  const proxyLog = createProxyLog();
  // Known once they listen: the page's origin, then the emulator's license URL.
  let appOrigin = '';
  let emulatorLicenseUrl: string | undefined;

  const site = createDemoSite({
    json,
    xml,
    session: () => session,
    realCredentials: () => {
      const real = realService.get();
      return real.enabled
        ? { siteId: real.siteId, siteKey: real.siteKey, accessKey: real.accessKey }
        : undefined;
    },
    proxy: {
      licenseUrl: () => emulatorLicenseUrl,
      header: DEFAULT_HEADER,
      pageOrigin: () => appOrigin,
      onEvent: proxyLog.record,
    },
  });

  const started: Listening[] = [];
  const stopAll = () => Promise.allSettled(started.map((s) => s.close()));
  const electron = options.shell === 'electron';
  try {
    // The app first: the emulator needs the gateway URLs, the page needs the other origins. In the
    // web mode it serves everything on loopback behind the guard; in Electron it serves only the
    // gateways the emulator calls, and the page and site go through the app's own protocol.
    let loopbackOrigin = '';
    let csp = () => '';
    let httpApi: ReturnType<typeof createHttpApi> | undefined;
    let page: ReturnType<typeof createStaticHandler> | undefined;
    const guard = createAppGuard({
      origin: () => loopbackOrigin,
      serverPaths: GATEWAY_PATHS,
    });
    // Electron's protocol handler: the page and site, not the gateways, for the page's own origin.
    const schemeHandler = async (request: Request): Promise<Response> => {
      if (GATEWAY_PATHS.has(new URL(request.url).pathname)) return notFound();
      if (isWrite(request) && request.headers.get('origin') !== APP_ORIGIN) return foreign();
      return appHandler(request);
    };
    const appHandler = async (request: Request): Promise<Response> => {
      const fromSite = site(request);
      if (fromSite !== undefined) return fromSite;
      if (new URL(request.url).pathname === PROXY_EVENTS_PATH) return proxyLog.handle(request);
      const fromApi = await httpApi?.(request);
      if (fromApi !== undefined) return fromApi;
      if (page === undefined) return new Response('Starting.\n', { status: 503 });
      const response = await page(request);
      for (const [name, value] of Object.entries(securityHeaders(csp()))) {
        response.headers.set(name, value);
      }
      return response;
    };
    const guarded = async (request: Request) => guard.check(request) ?? appHandler(request);
    const loopback = await listen(
      electron
        ? async (request) =>
            GATEWAY_PATHS.has(new URL(request.url).pathname)
              ? (guard.check(request) ?? appHandler(request))
              : notFound()
        : guarded,
      electron ? 0 : options.port,
    );
    started.push(loopback);
    loopbackOrigin = loopback.url;
    appOrigin = electron ? APP_ORIGIN : loopback.url;

    // Media only: manifests, playlists and segments. The key file beside them stays in main.
    const content = await listen(
      createStaticHandler(options.contentDir, {
        headers: { 'access-control-allow-origin': appOrigin, vary: 'origin' },
        extensions: MEDIA_TYPES,
      }),
    );
    started.push(content);

    const emulator = await startEmulator({
      sites: [
        { ...json, gatewayUrl: `${loopback.url}${SITE_PATHS.gatewayJson}`, gatewayFormat: 'json' },
        { ...xml, gatewayUrl: `${loopback.url}${SITE_PATHS.gatewayXml}`, gatewayFormat: 'xml' },
      ],
      keys: emulatorKeys(sample),
      customDataHeader: DEFAULT_HEADER,
      allowedOrigins: [appOrigin],
      // The screens control: a closed screen's slot frees its interval plus this after it stopped.
      streamGraceSeconds: STREAM_GRACE_SECONDS,
    });
    started.push(emulator);
    emulatorLicenseUrl = emulator.licenseUrl;

    // Computed per page load: the real service's origin may be set while the app runs.
    csp = () =>
      contentSecurityPolicy([emulator.url, content.url, ...realOrigins(realService.get())]);
    const api = createDemoApi({
      shell: options.shell,
      appUrl: appOrigin,
      emulatorUrl: emulator.url,
      contentUrl: content.url,
      contents: catalogue(sample.cid),
      contentKey: { kid: sample.kid, key: sample.key },
      siteIds: { json: json.siteId, xml: xml.siteId },
      header: DEFAULT_HEADER,
      session,
      realService,
      faults: emulator.faults,
    });
    page = createStaticHandler(options.rendererDir, { index: 'index.html' });
    // Electron's renderer talks over IPC; the HTTP API exists in the web mode only.
    if (!electron) httpApi = createHttpApi(api, () => appOrigin);

    return {
      url: appOrigin,
      openUrl: electron ? `${appOrigin}/` : `${appOrigin}${guard.launchPath}`,
      loopbackUrl: loopback.url,
      handle: electron ? schemeHandler : guarded,
      emulatorUrl: emulator.url,
      contentUrl: content.url,
      api,
      events: emulator.events,
      csp: () => csp(),
      close: async () => {
        await stopAll();
      },
    };
  } catch (error) {
    await stopAll();
    throw error;
  }
}

/** The paths the license service calls, server to server (their bodies are encrypted). */
const GATEWAY_PATHS: ReadonlySet<string> = new Set([SITE_PATHS.gatewayJson, SITE_PATHS.gatewayXml]);

const isWrite = (request: Request) => request.method !== 'GET' && request.method !== 'HEAD';

const plain = (status: number, text: string) =>
  new Response(`${text}\n`, {
    status,
    headers: { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' },
  });
const notFound = () => plain(404, 'NOT_FOUND: nothing is served here.');
const foreign = () => plain(403, 'FORBIDDEN_ORIGIN: Only the demo page may call the demo.');

// A configured real license cloud must be reachable from the page.
function realOrigins(settings: Readonly<RealServiceSettings>): string[] {
  if (!settings.licenseUrl || !URL.canParse(settings.licenseUrl)) return [];
  return [new URL(settings.licenseUrl).origin];
}

/** Paths of the demo's parts, from the demo-electron folder (or the packaged app's resources). */
export function demoPaths(demoRoot: string, resources?: string) {
  return {
    rendererDir: join(demoRoot, 'dist', 'renderer'),
    contentDir: resources
      ? join(resources, 'content')
      : join(demoRoot, '..', 'test', 'fixtures', 'content'),
  };
}
