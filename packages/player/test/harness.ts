// Test harness: a real shaka.Player (its NetworkingEngine and XHR plugin running on happy-dom's
// XMLHttpRequest) and msw standing in for the site's token endpoint and the license server.
import shakaModule from 'shaka-player';
import type { HttpResponseResolver } from 'msw';
import type Shaka from 'shaka-player';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import {
  attachLicenseAuth,
  type LicenseAuthEvents,
  type LicenseAuthHandle,
  type LicenseAuthOptions,
} from '../src/index.ts';
import {
  licenseServer,
  LICENSE_URL,
  newSeen,
  preflight,
  server,
  tokenEndpoint,
  TOKEN_URL,
} from './http-mocks.ts';

export * from './http-mocks.ts';

type ShakaNs = typeof Shaka.default;
// At run time the CommonJS build's exports object is the namespace itself.
export const shaka = shakaModule as unknown as ShakaNs;
shaka.polyfill.installAll();

export type Player = Shaka.default.Player;
export type ShakaError = Shaka.default.util.Error;

/** A `<video>` element (the root type check runs without the DOM lib, so the global is reached by cast). */
export function videoElement(): HTMLMediaElementLike {
  const { document } = globalThis as unknown as {
    document: { createElement(tag: 'video'): HTMLMediaElementLike };
  };
  return document.createElement('video');
}
type HTMLMediaElementLike = Parameters<Player['attach']>[0];

export function makePlayer(): Player {
  return new shaka.Player();
}

const FAST_RETRY = {
  maxAttempts: 2,
  baseDelay: 1,
  backoffFactor: 1,
  fuzzFactor: 0,
  timeout: 0,
  stallTimeout: 0,
  connectionTimeout: 0,
};

export interface LicenseRequestInit {
  keySystem?: string;
  uri?: string;
  body?: Uint8Array;
  maxAttempts?: number;
  licenseRequestType?: string | null;
  initData?: Uint8Array;
  initDataType?: string;
  /** `drmInfo.keySystemUris`, as Shaka's HLS parser fills it (`skd://` URIs for FairPlay). */
  keySystemUris?: string[];
  sessionId?: string;
  sessionType?: string;
  /**
   * The request's DRM info object: one per DRM engine. When not given, a new one (a Storage's), or
   * on a player the one its load's engine keeps, which the player then reports (`player.drmInfo()`).
   */
  drmInfo?: Shaka.default.extern.DrmInfo;
  /** What Shaka's DRM engine passes along: `isPreload` for a preload's requests. */
  context?: Shaka.default.extern.RequestContext;
}

/** Anything with a networking engine: a shaka.Player or a shaka.offline.Storage. */
export interface HasNetworkingEngine {
  getNetworkingEngine(): Shaka.default.net.NetworkingEngine | null;
}

const ownDrmInfos = new WeakMap<object, Map<string, Shaka.default.extern.DrmInfo>>();

/**
 * A license request as Shaka's DRM engine builds it (`sendLicenseRequest_`), sent through the
 * networking engine of a player (or of a Storage).
 */
export function requestLicense(player: HasNetworkingEngine, init: LicenseRequestInit = {}) {
  const uri = init.uri ?? LICENSE_URL;
  const request = shaka.net.NetworkingEngine.makeRequest([uri], {
    ...FAST_RETRY,
    maxAttempts: init.maxAttempts ?? 2,
  });
  request.method = 'POST';
  request.body = init.body ?? new Uint8Array([9, 9, 9]);
  request.licenseRequestType =
    init.licenseRequestType === undefined ? 'license-request' : init.licenseRequestType;
  request.initData = init.initData ?? null;
  request.initDataType = init.initDataType ?? null;
  request.sessionId = init.sessionId ?? 'session-1';
  const made = (): Shaka.default.extern.DrmInfo => ({
    keySystem: init.keySystem ?? 'com.widevine.alpha',
    licenseServerUri: uri,
    audioRobustness: '',
    videoRobustness: '',
    distinctiveIdentifierRequired: false,
    persistentStateRequired: false,
    encryptionScheme: 'cenc',
    initData: null,
    keyIds: null,
    serverCertificate: null,
    serverCertificateUri: '',
    sessionType: init.sessionType ?? 'temporary',
    ...(init.keySystemUris && { keySystemUris: new Set(init.keySystemUris) }),
  });
  request.drmInfo = init.drmInfo ?? made();
  if (!init.drmInfo && player instanceof shaka.Player) {
    // The player's own DRM engine made it: the player reports that engine's info (one per key
    // system, server and session type here, as one load's engine keeps one).
    const key = JSON.stringify([init.keySystem, uri, init.sessionType, init.keySystemUris]);
    const infos = ownDrmInfos.get(player) ?? new Map<string, Shaka.default.extern.DrmInfo>();
    ownDrmInfos.set(player, infos);
    const drmInfo = infos.get(key) ?? request.drmInfo;
    infos.set(key, (request.drmInfo = drmInfo));
    player.drmInfo = () => drmInfo;
  }
  return player
    .getNetworkingEngine()!
    .request(shaka.net.NetworkingEngine.RequestType.LICENSE, request, init.context).promise;
}

/** Resolves to the rejection of `promise` (fails the test if it resolves). */
export async function rejection(promise: Promise<unknown>): Promise<ShakaError> {
  try {
    await promise;
  } catch (error) {
    return error as ShakaError;
  }
  throw new Error('expected a rejection');
}

export interface Answers {
  token?: HttpResponseResolver;
  license?: HttpResponseResolver;
}

/**
 * Starts msw for the file, and gives `setup()`: a fresh player with the handle attached, and the
 * token and license requests it made in `h.seen`. Players are destroyed after each test.
 */
export function useLicenseAuthHarness() {
  const players: Player[] = [];
  beforeAll(() => server.listen({ onUnhandledFrame: 'error' }));
  afterEach(async () => {
    server.resetHandlers();
    await Promise.all(players.splice(0).map((p) => p.destroy()));
  });
  afterAll(() => server.close());

  const h = {
    seen: newSeen(),
    players,
    setup(options: Partial<LicenseAuthOptions> = {}, answers: Answers = {}) {
      const player = h.setupPlayerOnly();
      return { player, handle: h.attach(player, options, answers) };
    },
    /** A player (destroyed after the test) the app can set up before the handle is attached. */
    setupPlayerOnly(): Player {
      const player = makePlayer();
      players.push(player);
      return player;
    },
    /** The handle on `player`, with msw answering as `answers` say. */
    attach(player: Player, options: Partial<LicenseAuthOptions> = {}, answers: Answers = {}) {
      h.seen = newSeen();
      server.use(
        preflight,
        tokenEndpoint(h.seen, answers.token),
        licenseServer(h.seen, answers.license),
      );
      return attachLicenseAuth(player, { contentId: 'movie-1', tokenUrl: TOKEN_URL, ...options });
    },
    record<K extends keyof LicenseAuthEvents>(
      handle: LicenseAuthHandle,
      name: K,
    ): Array<LicenseAuthEvents[K]> {
      const events: Array<LicenseAuthEvents[K]> = [];
      handle.on(name, (event) => events.push(event));
      return events;
    },
    /** The error a filter threw, as Shaka hands it on (REQUEST/RESPONSE_FILTER_ERROR, original at data[0]). */
    filterError(error: unknown): unknown {
      const shakaError = error as ShakaError;
      expect([1006, 1007]).toContain(shakaError.code);
      return shakaError.data[0];
    },
  };
  return h;
}
