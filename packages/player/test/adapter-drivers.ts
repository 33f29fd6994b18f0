// One license request through each adapter that sends its requests itself (hls.js, dash.js,
// video.js), as its player makes it, with msw as the site and the license server: the outcome is
// the license or this package's error, whatever way the player reports it.
import * as dashjs from 'dashjs';
import type { LicenseRequest } from 'dashjs';
import Hls from 'hls.js';
import { HttpResponse, type HttpResponseResolver } from 'msw';
import videojsModule from 'video.js';
import 'videojs-contrib-eme';
import { emeErrorHandler, getOptions, handleEncryptedEvent } from 'videojs-contrib-eme';
import { attachLicenseAuth as attachDash } from '../src/dash/index.ts';
import type { LicenseAuthHandle } from '../src/engine/handle.ts';
import type { EngineOptions } from '../src/engine/options.ts';
import { findLicenseAuthError, LicenseAuthError } from '../src/engine/public.ts';
import { attachLicenseAuth as attachHls } from '../src/hls/index.ts';
import { attachLicenseAuth as attachVideojs, type VideoJsPlayer } from '../src/videojs/index.ts';
import {
  cors,
  licenseServer,
  LICENSE_URL,
  newSeen,
  preflight,
  server,
  tokenEndpoint,
  TOKEN_URL,
  type Seen,
} from './http-mocks.ts';

const videojs = videojsModule as unknown as typeof videojsModule.default;
videojs.log.level('off');

export const CLEARKEY_LICENSE =
  '{"keys":[{"kty":"oct","k":"AAAA","kid":"BBBB"}],"type":"temporary"}';
export const ADAPTERS = ['hls', 'dash', 'videojs'] as const;
export type AdapterName = (typeof ADAPTERS)[number];

export interface Answers {
  token?: HttpResponseResolver;
  license?: HttpResponseResolver;
}

export interface Driven {
  seen: Seen;
  handle: LicenseAuthHandle;
  /** One license request as the player makes it: the license's text, or this package's error. */
  request(): Promise<string | LicenseAuthError>;
  cleanup(): void;
}

const outcome = (error: unknown): LicenseAuthError => {
  const cause = findLicenseAuthError(error);
  if (!(cause instanceof LicenseAuthError)) throw error;
  return cause;
};

/** The adapter `name` attached to a fresh player, msw answering as `answers` say. */
export function drive(
  name: AdapterName,
  options: Partial<EngineOptions> = {},
  answers: Answers = {},
): Driven {
  const seen = newSeen();
  server.use(
    preflight,
    tokenEndpoint(seen, answers.token),
    licenseServer(seen, answers.license ?? (() => new HttpResponse(CLEARKEY_LICENSE, cors()))),
  );
  const common = {
    contentId: 'movie-1',
    tokenUrl: TOKEN_URL,
    licenseServer: { 'org.w3.clearkey': LICENSE_URL },
    ...options,
  };
  const text = (bytes: ArrayBuffer | Uint8Array) => new TextDecoder().decode(bytes);
  if (name === 'hls') {
    const hls = new Hls();
    const handle = attachHls(hls, common);
    const eme = (hls as unknown as { emeController: HlsEme }).emeController;
    const uri = 'data:text/plain;base64,PNj2IU1/lnfwsHbKGN8lAg==';
    return {
      seen,
      handle,
      request: () =>
        eme
          .requestLicense(
            {
              keySystem: 'org.w3.clearkey',
              mediaKeysSession: {},
              keyRequests: { [uri]: { requestErrors: [], status: 'license-request' } },
            },
            { uri, keyFormat: 'org.w3.clearkey' },
            new Uint8Array([1, 2, 3]),
          )
          .then(text, outcome),
      cleanup: () => hls.destroy(),
    };
  }
  if (name === 'dash') {
    const player = dashjs.MediaPlayer().create();
    const filters: Array<(request: LicenseRequest) => Promise<unknown>> = [];
    const register = player.registerLicenseRequestFilter.bind(player);
    player.registerLicenseRequestFilter = (filter) => {
      filters.push(filter as (typeof filters)[number]);
      register(filter);
    };
    const handle = attachDash(player, common);
    return {
      seen,
      handle,
      // The filter sends the request; a failure is dash.js's error event (the filter then stalls).
      request: () =>
        new Promise((resolve) => {
          player.on('error', (event: unknown) => resolve(outcome(event)));
          const request: LicenseRequest = {
            url: LICENSE_URL,
            method: 'POST',
            responseType: 'arraybuffer',
            headers: {},
            withCredentials: false,
            messageType: 'license-request',
            sessionId: 'session-1',
            data: new Uint8Array([1, 2, 3]).buffer,
          };
          void (async () => {
            for (const filter of filters) await filter(request);
            const res = await fetch(request.url);
            resolve(text(await res.arrayBuffer()));
          })();
        }),
      cleanup: () => handle.detach(),
    };
  }
  const video = document.createElement('video');
  document.body.append(video);
  Object.assign(video, { setMediaKeys: async () => undefined });
  const player = videojs(video);
  const handle = attachVideojs(player as unknown as VideoJsPlayer, common);
  // The plugin opens one session per init data: each request (a key rotation) brings its own, and
  // keeps the MediaKeys of the first: the license of any request goes to the one under way.
  let requests = 0;
  let licensed = (_: Uint8Array) => undefined as void;
  return {
    seen,
    handle,
    request: () =>
      new Promise((resolve) => {
        licensed = (bytes) => resolve(text(bytes));
        const cdm = standInCdm((bytes) => licensed(bytes));
        player.on('error', () => resolve(outcome(player.error())));
        void handleEncryptedEvent(
          player,
          { initDataType: 'cenc', initData: new Uint8Array([7, 7, 7 + requests++]), target: video },
          getOptions(player),
          [],
          player.tech(true),
          emeErrorHandler(player),
        );
        void cdm;
      }),
    cleanup: () => player.dispose(),
  };
}

interface HlsEme {
  requestLicense(
    context: object,
    levelKey: { uri: string; keyFormat: string },
    challenge: Uint8Array,
  ): Promise<ArrayBuffer>;
}

/** A CDM for videojs-contrib-eme: each session asks for a license, `updated` gets the answer. */
function standInCdm(updated: (license: Uint8Array) => void) {
  const mediaKeys = {
    createSession() {
      const session = Object.assign(new EventTarget(), {
        keyStatuses: new Map(),
        sessionId: 'session-1',
        async generateRequest() {
          const message = Object.assign(new Event('message'), {
            messageType: 'license-request',
            message: new Uint8Array([1, 2, 3]).buffer,
          });
          queueMicrotask(() => session.dispatchEvent(message));
        },
        async update(license: ArrayBuffer | Uint8Array) {
          updated(new Uint8Array(license instanceof ArrayBuffer ? license : license.buffer));
        },
        close: async () => undefined,
      });
      return session;
    },
    setServerCertificate: async () => true,
  };
  Object.defineProperty(navigator, 'requestMediaKeySystemAccess', {
    configurable: true,
    value: async (keySystem: string, configurations: unknown[]) => ({
      keySystem,
      getConfiguration: () => configurations[0],
      createMediaKeys: async () => mediaKeys,
    }),
  });
  return mediaKeys;
}
