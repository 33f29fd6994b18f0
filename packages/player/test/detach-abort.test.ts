// What is under way when the player lets go of its media is aborted, and nothing of it reaches the
// next media: hls.js's detachMedia() (a token fetch, a license request), and Shaka's re-send with a
// fresh token after a 7011 refusal, on unload() and on the handle's detach().
import Hls from 'hls.js';
import { delay, HttpResponse } from 'msw';
import { afterEach, describe, expect, test } from 'vitest';
import { attachLicenseAuth as attachHls } from '../src/hls/index.ts';
import { CLEARKEY_LICENSE } from './adapter-drivers.ts';
import {
  cors,
  licenseServer,
  LICENSE_URL,
  newSeen,
  preflight,
  rejection,
  requestLicense,
  server,
  shaka,
  text,
  tokenEndpoint,
  TOKEN_URL,
  useLicenseAuthHarness,
  type Answers,
} from './harness.ts';
import { slowSite } from './slow-site.ts';

// Starts msw for the file and destroys Shaka players after each test.
const h = useLicenseAuthHarness();

/** A license server whose answer waits until the client gives up; it records the abort. */
function hangingLicense(aborted: string[], label: () => string) {
  return async ({ request }: { request: Request }) => {
    await Promise.race([
      new Promise((resolve) =>
        request.signal.addEventListener('abort', () => resolve(aborted.push(label()))),
      ),
      delay(5000),
    ]);
    return new HttpResponse(CLEARKEY_LICENSE, cors());
  };
}

/** Settles into a flag, so a test can assert a promise has NOT settled. */
function watch(promise: Promise<unknown>) {
  const state = { settled: false };
  promise.then(
    () => (state.settled = true),
    () => (state.settled = true),
  );
  return state;
}

describe('hls.js: detachMedia()', () => {
  const players: Hls[] = [];
  afterEach(() => {
    for (const hls of players.splice(0)) hls.destroy();
  });

  function setup(answers: Answers & { getToken?: ReturnType<typeof slowSite>['getToken'] } = {}) {
    const seen = newSeen();
    server.use(preflight, tokenEndpoint(seen, answers.token), licenseServer(seen, answers.license));
    const hls = new Hls();
    players.push(hls);
    attachHls(hls, {
      contentId: 'movie-1',
      ...(answers.getToken ? { getToken: answers.getToken } : { tokenUrl: TOKEN_URL }),
      licenseServer: { 'org.w3.clearkey': LICENSE_URL },
    });
    const eme = (hls as unknown as { emeController: HlsEme }).emeController;
    const uri = 'data:text/plain;base64,PNj2IU1/lnfwsHbKGN8lAg==';
    const requestLicense = () =>
      eme.requestLicense(
        {
          keySystem: 'org.w3.clearkey',
          mediaKeysSession: {},
          keyRequests: { [uri]: { requestErrors: [], status: 'license-request' } },
        },
        { uri, keyFormat: 'org.w3.clearkey' },
        new Uint8Array([1, 2, 3]),
      );
    return { hls, seen, requestLicense };
  }

  test('aborts the token fetch under way; the token, when it comes, is sent with no license request', async () => {
    const site = slowSite();
    const { hls, seen, requestLicense } = setup({ getToken: site.getToken });
    const first = watch(requestLicense());
    await expect.poll(() => site.asked.length).toBe(1);
    hls.detachMedia();
    expect(site.asked[0]?.signal.aborted).toBe(true);
    site.give('movie-1');
    await delay(20);
    expect(seen.license).toHaveLength(0);
    // hls.js let go of that key session: the hook neither resolves nor rejects for it.
    expect(first.settled).toBe(false);
  });

  test('aborts the license request under way; the next media gets its own token and license', async () => {
    const aborted: string[] = [];
    const { hls, seen, requestLicense } = setup({
      license: (info) =>
        seen.license.length === 1
          ? hangingLicense(aborted, () => 'first')(info)
          : new HttpResponse(CLEARKEY_LICENSE, cors()),
    });
    const first = watch(requestLicense());
    await expect.poll(() => seen.license.length).toBe(1);
    hls.detachMedia();
    await expect.poll(() => aborted).toEqual(['first']);
    // The next media: a new load, a new request, answered; the first one stays unanswered.
    const license = await requestLicense();
    expect(text(license)).toBe(CLEARKEY_LICENSE);
    expect(seen.license).toHaveLength(2);
    expect(first.settled).toBe(false);
  });
});

describe('Shaka: the re-send with a fresh token after 7011', () => {
  /** The first answer refuses with 7011; the re-send hangs until the client gives up. */
  function refusedThenHanging(aborted: string[]): Answers {
    return {
      license: (info) =>
        h.seen.license.length === 1
          ? HttpResponse.json({ errorCode: '7011', message: 'token expired' }, cors())
          : hangingLicense(aborted, () => 're-send')(info),
    };
  }

  test.each(['unload', 'detach'] as const)(
    'player.%s() aborts it, and the app hears no error',
    async (method) => {
      const aborted: string[] = [];
      const { player, handle } = h.setup({}, refusedThenHanging(aborted));
      const failed = h.record(handle, 'licenseFailed');
      const pending = rejection(requestLicense(player));
      await expect.poll(() => h.seen.license.length).toBe(2);
      await player[method]();
      await expect.poll(() => aborted).toEqual(['re-send']);
      await pending;
      expect(h.seen.license.map((l) => l.header)).toEqual([
        'token-1-Widevine-movie-1',
        'token-2-Widevine-movie-1',
      ]);
      expect(failed).toEqual([]);
    },
  );

  test("the handle's detach() aborts it", async () => {
    const aborted: string[] = [];
    const { player, handle } = h.setup({}, refusedThenHanging(aborted));
    const pending = rejection(requestLicense(player));
    await expect.poll(() => h.seen.license.length).toBe(2);
    handle.detach();
    await expect.poll(() => aborted).toEqual(['re-send']);
    await pending;
  });
});

describe('Shaka: its own next attempt with a fresh token after HTTP 401', () => {
  test.each(['unload', 'detach'] as const)(
    'player.%s() aborts it, and the app hears no error',
    async (method) => {
      const aborted: string[] = [];
      const { player, handle } = h.setup(
        {},
        {
          license: (info) =>
            h.seen.license.length === 1
              ? new HttpResponse('sign in', cors({ status: 401 }))
              : hangingLicense(aborted, () => 're-send')(info),
        },
      );
      const failed = h.record(handle, 'licenseFailed');
      const pending = rejection(requestLicense(player, { maxAttempts: 3 }));
      await expect.poll(() => h.seen.license.length).toBe(2);
      await player[method]();
      await expect.poll(() => aborted).toEqual(['re-send']);
      const abortedError = await pending;
      expect(abortedError.code).toBe(shaka.util.Error.Code.OPERATION_ABORTED);
      // What the DRM engine hands its failure callback (if it still reports): kept from the app.
      const { Severity, Category, Code } = shaka.util.Error;
      const reported = new shaka.util.Error(
        Severity.CRITICAL,
        Category.DRM,
        Code.LICENSE_REQUEST_FAILED,
        abortedError,
        { sessionId: 'session-1', initData: new Uint8Array([1]), initDataType: 'cenc' },
      );
      player.getConfiguration().drm.failureCallback(reported);
      expect(reported.handled).toBe(true);
      expect(h.seen.license.map((l) => l.header)).toEqual([
        'token-1-Widevine-movie-1',
        'token-2-Widevine-movie-1',
      ]);
      expect(failed).toEqual([]);
    },
  );
});

interface HlsEme {
  requestLicense(
    context: object,
    levelKey: { uri: string; keyFormat: string },
    challenge: Uint8Array,
  ): Promise<ArrayBuffer>;
}
