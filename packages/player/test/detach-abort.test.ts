// What is under way when the player lets go of a load is aborted, and nothing of it reaches the
// next one: hls.js's destroy() (a token fetch, a license request; its detachMedia() and
// transferMedia() keep the load, whose request settles), and Shaka's re-send with a fresh token
// after a 7011 refusal, on unload() and on the handle's detach().
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

describe('hls.js: detachMedia(), transferMedia(), destroy()', () => {
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

  // detachMedia() and transferMedia() (picture-in-picture, another element, an interstitial) keep
  // the source and its key sessions: hls.js has no EME timeout, so a hook that never answered
  // would stall the key session the media finds when it is back.
  test.each(['detachMedia', 'transferMedia'] as const)(
    '%s() while the token is on its way: the fetch goes on, and the hook settles with the license',
    async (method) => {
      const site = slowSite();
      const { hls, seen, requestLicense } = setup({
        getToken: site.getToken,
        license: () => new HttpResponse(CLEARKEY_LICENSE, cors()),
      });
      const errors: unknown[] = [];
      hls.on(Hls.Events.ERROR, (_, data) => errors.push(data));
      const request = requestLicense();
      await expect.poll(() => site.asked.length).toBe(1);
      hls[method]();
      expect(site.asked[0]?.signal.aborted).toBe(false);
      site.give('movie-1');
      expect(text(await request)).toBe(CLEARKEY_LICENSE);
      expect(seen.license.map((l) => l.header)).toEqual(['token-movie-1']);
      expect(errors).toEqual([]);
    },
  );

  test('a license request under way at detachMedia() is answered too', async () => {
    const { hls, seen, requestLicense } = setup({
      license: async () => {
        await delay(50);
        return new HttpResponse(CLEARKEY_LICENSE, cors());
      },
    });
    const request = requestLicense();
    await expect.poll(() => seen.license.length).toBe(1);
    hls.detachMedia();
    expect(text(await request)).toBe(CLEARKEY_LICENSE);
  });

  test('hls.destroy() aborts the token fetch; the token, when it comes, is sent with no license request', async () => {
    const site = slowSite();
    const { hls, seen, requestLicense } = setup({ getToken: site.getToken });
    const first = watch(requestLicense());
    await expect.poll(() => site.asked.length).toBe(1);
    players.splice(players.indexOf(hls), 1);
    hls.destroy();
    expect(site.asked[0]?.signal.aborted).toBe(true);
    site.give('movie-1');
    await delay(20);
    expect(seen.license).toHaveLength(0);
    // hls.js is gone: nothing waits for the hook any more.
    await expect.poll(() => first.settled).toBe(true);
  });

  test('the license request under way at hls.destroy() is aborted', async () => {
    const aborted: string[] = [];
    const { hls, seen, requestLicense } = setup({
      license: (info) => hangingLicense(aborted, () => 'first')(info),
    });
    watch(requestLicense());
    await expect.poll(() => seen.license.length).toBe(1);
    players.splice(players.indexOf(hls), 1);
    hls.destroy();
    await expect.poll(() => aborted).toEqual(['first']);
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
