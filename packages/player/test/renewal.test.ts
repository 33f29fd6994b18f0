// The renewal driver with stand-in CDM sessions: the real engine, license sender and token client,
// a stand-in site and license server behind the `fetch` option, and EME classes that behave as the
// browser's do (a session asks for its license with a `message`, takes it with `update`, and
// settles `closed` when closed).
import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';
import { createEngine, type Engine } from '../src/engine/engine.ts';
import { LicenseServiceError } from '../src/engine/errors.ts';
import { createLicenseSender } from '../src/engine/license-request.ts';
import type { EngineEvents } from '../src/engine/events.ts';
import { resolveOptions, type EngineOptions } from '../src/engine/options.ts';
import { startRenewal, type RenewalDriver } from '../src/engine/renewal.ts';
import type { LoadSession } from '../src/engine/session.ts';

const TOKEN_URL = 'http://localhost:3000/api/drm-token';
const LICENSE_URL = 'http://127.0.0.1:8443/license';
const REMOTE_LICENSE_URL = 'https://license.example.com/license';
const CID = 'episode-1';
const INIT_DATA = new Uint8Array([0, 0, 0, 52, 112, 115, 115, 104, 1, 2, 3]);

class FakeSession extends EventTarget {
  static made: FakeSession[] = [];
  /** The CDM refuses the next generateRequest (init data it cannot read). */
  static refuseNext = false;
  readonly sessionId = `session-${FakeSession.made.length + 1}`;
  generated: { initDataType: string; initData: Uint8Array } | undefined;
  updates: string[] = [];
  /** Filled by a license, as a CDM does. */
  readonly keyStatuses = new Map<string, string>();
  isClosed = false;
  private close_!: () => void;
  readonly closed = new Promise<void>((resolve) => (this.close_ = resolve));
  readonly keys: FakeMediaKeys;
  constructor(keys: FakeMediaKeys) {
    super();
    this.keys = keys;
    FakeSession.made.push(this);
  }
  async generateRequest(initDataType: string, initData: BufferSource) {
    if (FakeSession.refuseNext) {
      FakeSession.refuseNext = false;
      throw new TypeError('The CDM could not read the init data.');
    }
    this.generated = { initDataType, initData: new Uint8Array(initData as ArrayBuffer) };
    const message = new TextEncoder().encode(`challenge of ${this.sessionId}`).buffer;
    queueMicrotask(() =>
      this.dispatchEvent(
        Object.assign(new Event('message'), { message, messageType: 'license-request' }),
      ),
    );
  }
  async update(data: BufferSource) {
    this.updates.push(new TextDecoder().decode(data as Uint8Array));
    this.keyStatuses.set('kid', 'usable');
  }
  async close() {
    this.isClosed = true;
    this.close_();
  }
}
class FakeMediaKeys {
  createSession(): FakeSession {
    return new FakeSession(this);
  }
}
class FakeAccess {
  readonly keySystem: string;
  private readonly configuration: MediaKeySystemConfiguration;
  constructor(keySystem: string, configuration: MediaKeySystemConfiguration = {}) {
    this.keySystem = keySystem;
    this.configuration = configuration;
  }
  getConfiguration() {
    return this.configuration;
  }
  async createMediaKeys() {
    return new FakeMediaKeys();
  }
}

/** The media element as the driver sees it: its media keys, paused, and play/pause events. */
class FakeMedia extends EventTarget {
  mediaKeys: FakeMediaKeys | null = null;
  paused = false;
  pause() {
    this.paused = true;
    this.dispatchEvent(new Event('pause'));
  }
  play() {
    this.paused = false;
    this.dispatchEvent(new Event('play'));
  }
}
class FakeDocument extends EventTarget {
  visibilityState = 'visible';
  set(state: 'visible' | 'hidden') {
    this.visibilityState = state;
    this.dispatchEvent(new Event('visibilitychange'));
  }
}

interface LicenseCall {
  url: string;
  token: string | null;
  streamId: string | null;
  body: string;
}

/** The site and the license server: each token is new; each license answer is `answer()`'s. */
function services(options: { renewalHeader?: string } = {}) {
  let tokens = 0;
  const licenses: LicenseCall[] = [];
  const state = {
    licenses,
    tokensIssued: () => tokens,
    answer: (): Response | Promise<Response> => new Response(new TextEncoder().encode('license')),
  };
  const fetch = async (url: string, init: RequestInit): Promise<Response> => {
    if (url === TOKEN_URL) {
      tokens++;
      const headers: Record<string, string> = options.renewalHeader
        ? { 'x-renewal-interval': options.renewalHeader }
        : {};
      return new Response(`token-${tokens}`, { headers });
    }
    const headers = new Headers(init.headers as Record<string, string>);
    licenses.push({
      url,
      token: headers.get('x-drm-custom-data'),
      streamId: headers.get('x-drm-stream-id'),
      body: new TextDecoder().decode(init.body as Uint8Array),
    });
    return state.answer();
  };
  return Object.assign(state, { fetch });
}

interface Load {
  engine: Engine;
  session: LoadSession;
  media: FakeMedia;
  page: FakeDocument;
  driver: RenewalDriver;
  /** The player's own session of the load, licensed as the player would. */
  playerSession: FakeSession;
  events: { [K in keyof EngineEvents]?: Array<EngineEvents[K]> };
  refused: unknown[];
}

async function load(
  fetch: (url: string, init: RequestInit) => Promise<Response>,
  options: Partial<EngineOptions> & {
    keySystem?: string;
    configuration?: MediaKeySystemConfiguration;
    /** The player's session got its license (else it still waits for it). */
    licensed?: boolean;
  } = {},
): Promise<Load> {
  const { keySystem = 'org.w3.clearkey', configuration, licensed = true, ...rest } = options;
  const engine = createEngine(
    resolveOptions({
      tokenUrl: TOKEN_URL,
      licenseServer: { [keySystem]: LICENSE_URL },
      contentId: CID,
      fetch,
      now: () => Date.now(),
      retry: { maxAttempts: 1 },
      ...rest,
    }),
  );
  const events: Load['events'] = {};
  for (const name of [
    'licenseRequestSent',
    'licenseRenewed',
    'renewalFailed',
    'renewalWarning',
  ] as const) {
    engine.emitter.on(
      name,
      (event: unknown) => void ((events[name] ??= []) as unknown[]).push(event),
    );
  }
  const session = engine.loads.started();
  const media = new FakeMedia();
  const page = new FakeDocument();
  const refused: unknown[] = [];
  const driver = startRenewal(
    engine,
    session,
    {
      media: () => media as unknown as HTMLMediaElement,
      refused: (e) => refused.push(e),
      send: createLicenseSender(engine),
    },
    page,
  );
  // The player: media keys for the key system, one session from the content's init data.
  const access = new FakeAccess(keySystem, configuration);
  media.mediaKeys = (await (
    access as unknown as MediaKeySystemAccess
  ).createMediaKeys()) as unknown as FakeMediaKeys;
  const playerSession = (
    media.mediaKeys as unknown as MediaKeys
  ).createSession() as unknown as FakeSession;
  await playerSession.generateRequest('cenc', INIT_DATA);
  if (licensed) playerSession.keyStatuses.set('kid', 'usable');
  return { engine, session, media, page, driver, playerSession, events, refused };
}

/** Sessions the driver made: every stand-in session but the player's. */
const renewalSessions = (l: Load) => FakeSession.made.filter((s) => s !== l.playerSession);

beforeEach(() => {
  vi.useFakeTimers();
  FakeSession.made = [];
  FakeSession.refuseNext = false;
  vi.stubGlobal('MediaKeys', FakeMediaKeys);
  vi.stubGlobal('MediaKeySystemAccess', FakeAccess);
});
afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
});

describe.each([
  ['org.w3.clearkey', 'Widevine'],
  ['com.microsoft.playready', 'PlayReady'],
])('%s: a new session from the init data at each interval', (keySystem, drmType) => {
  test('each renewal is a license-renewal request with a fresh token; the old session closes once the new one holds the license', async () => {
    const site = services();
    const l = await load(site.fetch, { keySystem, renewal: { intervalSec: 2 } });
    await vi.advanceTimersByTimeAsync(1999);
    expect(renewalSessions(l)).toEqual([]);

    await vi.advanceTimersByTimeAsync(1);
    const [first] = renewalSessions(l);
    expect(first?.generated).toEqual({ initDataType: 'cenc', initData: INIT_DATA });
    expect(first?.updates).toEqual(['license']);
    expect(l.playerSession.isClosed).toBe(true);
    expect(l.events.licenseRequestSent).toEqual([
      expect.objectContaining({
        keySystem,
        drmType,
        cid: CID,
        licenseRequestType: 'license-renewal',
      }),
    ]);
    expect(l.events.licenseRenewed).toEqual([
      { keySystem, drmType, cid: CID, method: 'new-session' },
    ]);

    await vi.advanceTimersByTimeAsync(2000 * 4);
    const made = renewalSessions(l);
    expect(made).toHaveLength(5);
    // Each session replaced the one before it: only the last is open.
    expect(made.map((s) => s.isClosed)).toEqual([true, true, true, true, false]);
    expect(made[4]?.generated?.initData).toEqual(INIT_DATA);
    // Five renewals, five tokens, none used twice.
    const tokens = site.licenses.map((c) => c.token);
    expect(tokens).toEqual(['token-1', 'token-2', 'token-3', 'token-4', 'token-5']);
    expect(site.licenses.map((c) => c.body)).toEqual(
      made.map((s) => `challenge of ${s.sessionId}`),
    );
    l.driver.stop();
  });
});

test('FairPlay: update("renew") on the player\'s own session, whose renewal request the player sends', async () => {
  const site = services();
  const l = await load(site.fetch, { keySystem: 'com.apple.fps', renewal: { intervalSec: 1 } });
  await vi.advanceTimersByTimeAsync(3000);
  expect(l.playerSession.updates).toEqual(['renew', 'renew', 'renew']);
  expect(renewalSessions(l)).toEqual([]);
  expect(l.playerSession.isClosed).toBe(false);
  expect(l.events.licenseRenewed).toEqual(
    Array(3).fill({
      keySystem: 'com.apple.fps',
      drmType: 'FairPlay',
      cid: CID,
      method: 'renew-message',
    }),
  );
  l.driver.stop();
});

test('a renewal request the player sends (licenseRequestType license-renewal) never reuses a cached token', async () => {
  const site = services();
  const engine = createEngine(
    resolveOptions({ tokenUrl: TOKEN_URL, licenseServer: LICENSE_URL, fetch: site.fetch }),
  );
  const session = engine.loads.started();
  const headers = (type: string) => {
    const h: Record<string, string> = {};
    const x = engine.begin('com.apple.fps', 'FairPlay', CID, session, type);
    return engine.authorize(x, h, 0, LICENSE_URL).then(() => h['x-drm-custom-data']);
  };
  expect(await headers('license-request')).toBe('token-1');
  expect(await headers('license-request')).toBe('token-1');
  expect(await headers('license-renewal')).toBe('token-2');
  expect(await headers('license-renewal')).toBe('token-3');
  engine.destroy();
});

describe('Widevine: renewed by its CDM', () => {
  test("without persistentState: 'required' the driver says so, once, and sends nothing", async () => {
    const site = services();
    const l = await load(site.fetch, {
      keySystem: 'com.widevine.alpha',
      configuration: { persistentState: 'optional' },
      renewal: { intervalSec: 1 },
    });
    await vi.advanceTimersByTimeAsync(3000);
    expect(l.events.renewalWarning).toEqual([
      {
        keySystem: 'com.widevine.alpha',
        message: expect.stringContaining("persistentState: 'required' (granted: optional)"),
      },
    ]);
    expect(site.licenses).toEqual([]);
    expect(renewalSessions(l)).toEqual([]);
    l.driver.stop();
  });

  test("with persistentState: 'required' the driver leaves it to the CDM, silently", async () => {
    const site = services();
    const l = await load(site.fetch, {
      keySystem: 'com.widevine.alpha',
      configuration: { persistentState: 'required' },
      renewal: { intervalSec: 1 },
    });
    await vi.advanceTimersByTimeAsync(3000);
    expect(l.events.renewalWarning).toBeUndefined();
    expect(site.licenses).toEqual([]);
    l.driver.stop();
  });
});

describe('when renewals wait', () => {
  test('a page hidden longer than hiddenLimitSec stops renewing until it is visible again, then renews at once', async () => {
    const site = services();
    const l = await load(site.fetch, { renewal: { intervalSec: 1, hiddenLimitSec: 2 } });
    l.page.set('hidden');
    // Renewed at 1 s (hidden for 1 s); at 2 s the page has been hidden for the 2 s allowed.
    await vi.advanceTimersByTimeAsync(10_000);
    expect(site.licenses).toHaveLength(1);
    l.page.set('visible');
    await vi.advanceTimersByTimeAsync(0);
    expect(site.licenses).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(1000);
    expect(site.licenses).toHaveLength(3);
    l.driver.stop();
  });

  test('playback paused longer than pausedLimitSec stops renewing until it plays', async () => {
    const site = services();
    const l = await load(site.fetch, { renewal: { intervalSec: 1, pausedLimitSec: 3 } });
    await vi.advanceTimersByTimeAsync(1000);
    expect(site.licenses).toHaveLength(1);
    l.media.pause();
    await vi.advanceTimersByTimeAsync(20_000);
    // Renewed while paused for less than 3 s (at 2 s and 3 s), then no more.
    expect(site.licenses).toHaveLength(3);
    l.media.play();
    await vi.advanceTimersByTimeAsync(0);
    expect(site.licenses).toHaveLength(4);
    l.driver.stop();
  });
});

test('a license is never renewed twice at once: a slow renewal holds the next ones back', async () => {
  const site = services();
  let release = () => {};
  site.answer = () =>
    new Promise<Response>((resolve) => {
      release = () => resolve(new Response(new TextEncoder().encode('license')));
    });
  const l = await load(site.fetch, {
    renewal: { intervalSec: 1 },
    licenseTimeoutMs: 60_000,
  });
  await vi.advanceTimersByTimeAsync(5000);
  expect(site.licenses).toHaveLength(1);
  site.answer = () => new Response(new TextEncoder().encode('license'));
  release();
  await vi.advanceTimersByTimeAsync(1000);
  // The renewed license is renewed next, once.
  expect(site.licenses).toHaveLength(2);
  expect(renewalSessions(l).map((s) => s.isClosed)).toEqual([true, false]);
  l.driver.stop();
});

test('a session still waiting for its first license is not renewed', async () => {
  const site = services();
  const l = await load(site.fetch, { renewal: { intervalSec: 1 }, licensed: false });
  await vi.advanceTimersByTimeAsync(3000);
  expect(site.licenses).toEqual([]);
  l.playerSession.keyStatuses.set('kid', 'usable');
  await vi.advanceTimersByTimeAsync(1000);
  expect(site.licenses).toHaveLength(1);
  l.driver.stop();
});

test('a CDM that cannot start the new session is not final, and leaves nothing behind when the load ends', async () => {
  const site = services();
  const l = await load(site.fetch, { renewal: { intervalSec: 1 } });
  FakeSession.refuseNext = true;
  await vi.advanceTimersByTimeAsync(1000);
  expect(l.events.renewalFailed).toEqual([
    expect.objectContaining({
      final: false,
      error: expect.objectContaining({
        code: 'LICENSE_REQUEST_FAILED',
        message: expect.stringContaining('The CDM could not read the init data.'),
      }),
    }),
  ]);
  expect(renewalSessions(l).map((s) => s.isClosed)).toEqual([true]);
  await vi.advanceTimersByTimeAsync(1000);
  expect(l.events.licenseRenewed).toHaveLength(1);
  // The load ends: the failed attempt's wait for a message rejects nowhere.
  l.engine.loads.ended('The player unloaded.');
  await vi.advanceTimersByTimeAsync(1000);
  expect(site.licenses).toHaveLength(1);
});

test('the end of the load ends its renewals and closes the sessions the driver opened', async () => {
  const site = services();
  const l = await load(site.fetch, { renewal: { intervalSec: 1 } });
  await vi.advanceTimersByTimeAsync(2000);
  expect(site.licenses).toHaveLength(2);
  l.engine.loads.ended('The player unloaded.');
  await vi.advanceTimersByTimeAsync(0);
  expect(renewalSessions(l).every((s) => s.isClosed)).toBe(true);
  await vi.advanceTimersByTimeAsync(10_000);
  expect(site.licenses).toHaveLength(2);
});

describe('a refused renewal', () => {
  test.each([
    ['8711', 'playback-period'],
    ['6003', 'streams'],
  ])(
    '%s: the app gets a LicenseServiceError naming the limit (%s), the load stops renewing',
    async (code, limit) => {
      const site = services();
      const l = await load(site.fetch, { renewal: { intervalSec: 1 } });
      site.answer = () => Response.json({ errorCode: code, message: 'refused' });
      await vi.advanceTimersByTimeAsync(1000);
      expect(l.refused).toHaveLength(1);
      const error = l.refused[0] as LicenseServiceError;
      expect(error).toBeInstanceOf(LicenseServiceError);
      expect(error).toMatchObject({ errorCode: code, limit, renewal: true });
      expect(error.message).toContain(`(${code}: refused, HTTP 200)`);
      expect(l.events.renewalFailed).toEqual([
        { keySystem: 'org.w3.clearkey', drmType: 'Widevine', cid: CID, error, final: true },
      ]);
      expect(l.media.paused).toBe(true);
      // The new session is closed; the player's own is the player's to close as it stops.
      expect(renewalSessions(l).map((s) => s.isClosed)).toEqual([true]);
      await vi.advanceTimersByTimeAsync(5000);
      expect(site.licenses).toHaveLength(1);
    },
  );

  test('7011 is sent once more with a fresh token, and the renewal goes through', async () => {
    const site = services();
    const l = await load(site.fetch, { renewal: { intervalSec: 1 } });
    let n = 0;
    site.answer = () =>
      n++ === 0
        ? Response.json({ errorCode: '7011', message: 'expired' })
        : new Response(new TextEncoder().encode('license'));
    await vi.advanceTimersByTimeAsync(1000);
    expect(site.licenses.map((c) => c.token)).toEqual(['token-1', 'token-2']);
    expect(l.refused).toEqual([]);
    expect(l.events.licenseRenewed).toHaveLength(1);
    l.driver.stop();
  });

  test('a license server that does not answer is not final: the next interval tries again', async () => {
    const site = services();
    const l = await load(site.fetch, { renewal: { intervalSec: 1 } });
    site.answer = () => new Response('down', { status: 503 });
    await vi.advanceTimersByTimeAsync(1000);
    expect(l.events.renewalFailed).toEqual([
      expect.objectContaining({
        final: false,
        error: expect.objectContaining({ code: 'LICENSE_REQUEST_FAILED' }),
      }),
    ]);
    site.answer = () => new Response(new TextEncoder().encode('license'));
    await vi.advanceTimersByTimeAsync(1000);
    expect(l.events.licenseRenewed).toHaveLength(1);
    expect(l.refused).toEqual([]);
    l.driver.stop();
  });
});

describe('the interval', () => {
  test("comes from the site's x-renewal-interval header when the option does not give it", async () => {
    const site = services({ renewalHeader: '3' });
    const l = await load(site.fetch);
    expect(l.engine.renewalIntervalSec()).toBeUndefined();
    await l.engine.getToken(CID, 'Widevine');
    expect(l.engine.renewalIntervalSec()).toBe(3);
    await vi.advanceTimersByTimeAsync(2999);
    expect(site.licenses).toHaveLength(0);
    await vi.advanceTimersByTimeAsync(1);
    expect(site.licenses).toHaveLength(1);
    l.driver.stop();
  });

  test('intervalSec wins over the header; with neither, nothing is renewed', async () => {
    const given = services({ renewalHeader: '3' });
    const l = await load(given.fetch, { renewal: { intervalSec: 1 } });
    await l.engine.getToken(CID, 'Widevine');
    expect(l.engine.renewalIntervalSec()).toBe(1);
    l.driver.stop();

    const none = services();
    const m = await load(none.fetch);
    await m.engine.getToken(CID, 'Widevine');
    await vi.advanceTimersByTimeAsync(60_000);
    expect(none.licenses).toEqual([]);
    m.driver.stop();
  });

  test("comes from the header through the app's axios instance too", async () => {
    // An axios instance is a function with methods; the handle uses its post().
    const axios = Object.assign(() => undefined, {
      post: async () => ({ status: 200, data: 'token-1', headers: { 'x-renewal-interval': '7' } }),
    });
    const engine = createEngine(
      resolveOptions({ tokenUrl: TOKEN_URL, axios, licenseServer: LICENSE_URL }),
    );
    await engine.getToken(CID, 'Widevine');
    expect(engine.renewalIntervalSec()).toBe(7);
    engine.destroy();
  });

  test("in proxy mode comes from the proxy's license answer, and only there", async () => {
    const PROXY = 'http://localhost:3000/drm/license';
    const site = services();
    site.answer = () =>
      new Response(new TextEncoder().encode('license'), {
        headers: { 'x-renewal-interval': '3' },
      });
    const l = await load(site.fetch, {
      tokenUrl: undefined,
      licenseServer: undefined,
      licenseProxy: PROXY,
    });
    expect(l.engine.renewalIntervalSec()).toBeUndefined();
    // The player's own first license, sent through the proxy as hls.js, dash.js and video.js do.
    const first = {
      keySystem: 'org.w3.clearkey',
      drmType: 'Widevine' as const,
      cid: CID,
      url: LICENSE_URL,
      body: new Uint8Array([1]),
      licenseRequestType: 'license-request',
      session: l.session,
    };
    await createLicenseSender(l.engine)(first);
    expect(l.engine.renewalIntervalSec()).toBe(3);
    await vi.advanceTimersByTimeAsync(2999);
    expect(site.licenses).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(site.licenses.map((c) => c.url)).toEqual([
      `${PROXY}?drmType=widevine&cid=${CID}`,
      `${PROXY}?drmType=widevine&cid=${CID}`,
    ]);
    expect(site.tokensIssued()).toBe(0);
    l.driver.stop();

    // A license server the player calls itself does not set the site's interval.
    const direct = await load(site.fetch);
    await createLicenseSender(direct.engine)({ ...first, session: direct.session });
    expect(direct.engine.renewalIntervalSec()).toBeUndefined();
    direct.driver.stop();
  });

  test('a header that is not a whole number of seconds is ignored', async () => {
    const site = services({ renewalHeader: '1.5' });
    const l = await load(site.fetch);
    await l.engine.getToken(CID, 'Widevine');
    expect(l.engine.renewalIntervalSec()).toBeUndefined();
    l.driver.stop();
  });

  test('renewal options are checked', () => {
    expect(() =>
      resolveOptions({ tokenUrl: TOKEN_URL, renewal: { intervalSec: 0, pausedLimitSec: -1 } }),
    ).toThrow(
      'attachLicenseAuth(player, options): renewal.pausedLimitSec must be a number >= 0; renewal.intervalSec must be a number of seconds > 0.',
    );
  });
});

describe('the stream ID', () => {
  test('goes to a local license server, the same for every request of the load, and never to a remote one', async () => {
    const site = services();
    const l = await load(site.fetch, { renewal: { intervalSec: 1 } });
    await vi.advanceTimersByTimeAsync(2000);
    const ids = site.licenses.map((c) => c.streamId);
    expect(ids[0]).toMatch(/^[\x21-\x7e]{1,128}$/);
    expect(ids).toEqual([ids[0], ids[0]]);
    l.driver.stop();

    const remote = services();
    const r = await load(remote.fetch, {
      licenseServer: { 'org.w3.clearkey': REMOTE_LICENSE_URL },
      header: 'x-service-customdata',
      renewal: { intervalSec: 1 },
    });
    await vi.advanceTimersByTimeAsync(1000);
    expect(remote.licenses).toEqual([
      expect.objectContaining({ url: REMOTE_LICENSE_URL, streamId: null }),
    ]);
    r.driver.stop();
  });

  test('differs from one load to the next', async () => {
    const site = services();
    const engine = createEngine(
      resolveOptions({ tokenUrl: TOKEN_URL, licenseServer: LICENSE_URL, fetch: site.fetch }),
    );
    // The header a license request of the load sends to the local license server.
    const streamId = async (session: LoadSession) => {
      const h: Record<string, string> = {};
      const x = engine.begin('org.w3.clearkey', 'Widevine', CID, session, 'license-request');
      await engine.authorize(x, h, 0, LICENSE_URL);
      return h['x-drm-stream-id'];
    };
    const a = engine.open('a');
    const b = engine.open('b');
    const first = await streamId(a);
    expect(first).toMatch(/^[\da-f-]{36}$/);
    expect(await streamId(b)).not.toBe(first);
    expect(await streamId(a)).toBe(first);
    engine.destroy();
  });
});
