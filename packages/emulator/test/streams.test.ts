import { createTokenIssuer, type TokenPolicyV2Input } from '@multidrm/site-kit';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startEmulator, type FlowEvent, type RunningEmulator } from '../src/index.ts';
import { EmulatorError } from '../src/errors.ts';
import { StreamRegistry, type StreamIdentity } from '../src/streams.ts';
import { CID, KEY, KID, OTHER_KID, postLicense, refusalOf, TOKEN_SITE } from './helpers.ts';

const T0 = Date.UTC(2030, 0, 1, 12, 0, 0);

describe('StreamRegistry', () => {
  const who = (streamId: string, cid = CID, deviceId = 'device-1'): StreamIdentity => ({
    siteId: 'S',
    userId: 'u',
    deviceId,
    cid,
    streamId,
  });
  const registry = () => new StreamRegistry({ graceSeconds: 30, defaultIntervalSeconds: 60 });
  const codeOf = (run: () => unknown) => {
    try {
      run();
      return 'issued';
    } catch (error) {
      return error instanceof EmulatorError ? error.code : String(error);
    }
  };
  const open = (r: StreamRegistry, id: StreamIdentity, policy: object, at: number) => {
    const decision = r.check(id, { persistent: false, ...policy }, at);
    r.commit(decision, { persistent: false, ...policy }, at);
    return decision;
  };

  it('counts a stream until its renewal interval plus the grace have passed without a renewal', () => {
    const r = registry();
    const policy = { max_stream_per_user: 1, renewal_duration: 20 };
    open(r, who('a'), policy, T0);
    expect(codeOf(() => r.check(who('b'), { persistent: false, ...policy }, T0 + 50_000))).toBe(
      'STREAM_LIMIT_REACHED',
    );
    expect(codeOf(() => r.check(who('b'), { persistent: false, ...policy }, T0 + 50_001))).toBe(
      'issued',
    );
  });

  it('keeps a stream that renews in time counted, and reports the renewal', () => {
    const r = registry();
    const policy = { max_stream_per_user: 1 };
    expect(open(r, who('a'), policy, T0)).toMatchObject({ renewal: false, activeStreams: 1 });
    for (let t = 80_000; t <= 400_000; t += 80_000) {
      expect(open(r, who('a'), policy, T0 + t)).toMatchObject({ renewal: true, activeStreams: 1 });
    }
    expect(codeOf(() => r.check(who('b'), { persistent: false, ...policy }, T0 + 400_000))).toBe(
      'STREAM_LIMIT_REACHED',
    );
  });

  it('counts the streams of one user across contents, and not those of other users or sites', () => {
    const r = registry();
    const policy = { max_stream_per_user: 2 };
    open(r, who('', 'movie'), policy, T0);
    open(r, who('', 'series'), policy, T0);
    expect(codeOf(() => r.check(who('', 'news'), { persistent: false, ...policy }, T0))).toBe(
      'STREAM_LIMIT_REACHED',
    );
    const other = { ...who('', 'news'), userId: 'v' };
    expect(codeOf(() => r.check(other, { persistent: false, ...policy }, T0))).toBe('issued');
    const elsewhere = { ...who('', 'news'), siteId: 'T' };
    expect(codeOf(() => r.check(elsewhere, { persistent: false, ...policy }, T0))).toBe('issued');
  });

  it('records nothing on check alone', () => {
    const r = registry();
    const policy = { max_stream_per_user: 1 };
    r.check(who('a'), { persistent: false, ...policy }, T0);
    expect(codeOf(() => r.check(who('b'), { persistent: false, ...policy }, T0))).toBe('issued');
  });

  it('forgets the oldest users beyond maxEntries', () => {
    const r = new StreamRegistry({ graceSeconds: 30, defaultIntervalSeconds: 60, maxEntries: 2 });
    const policy = { max_stream_per_user: 1 };
    for (const userId of ['u1', 'u2', 'u3']) {
      const id = { ...who('a'), userId };
      r.commit(r.check(id, { persistent: false, ...policy }, T0), { persistent: false }, T0);
    }
    const first = { ...who('b'), userId: 'u1' };
    const last = { ...who('b'), userId: 'u3' };
    expect(codeOf(() => r.check(first, { persistent: false, ...policy }, T0))).toBe('issued');
    expect(codeOf(() => r.check(last, { persistent: false, ...policy }, T0))).toBe(
      'STREAM_LIMIT_REACHED',
    );
  });

  it('counts a stream per device: devices sharing one stream ID are as many streams', () => {
    const r = registry();
    const policy = { max_stream_per_user: 1 };
    expect(open(r, who('shared', CID, 'device-1'), policy, T0)).toMatchObject({ renewal: false });
    for (let d = 2; d <= 10; d++) {
      const other = who('shared', CID, `device-${d}`);
      expect(
        codeOf(() => r.check(other, { persistent: false, ...policy }, T0 + d)),
        `device ${d}`,
      ).toBe('STREAM_LIMIT_REACHED');
    }
    // The device that opened it renews it.
    expect(open(r, who('shared', CID, 'device-1'), policy, T0 + 20)).toMatchObject({
      renewal: true,
      activeStreams: 1,
    });
  });

  it('without a stream ID, a request of the user for the cid from the device renews its stream', () => {
    const r = registry();
    const policy = { max_stream_per_user: 1 };
    // What the service also receives names the stream: ten requests of one device for one cid renew it.
    expect(open(r, who(''), policy, T0)).toMatchObject({ renewal: false, activeStreams: 1 });
    for (let i = 1; i <= 10; i++) {
      expect(open(r, who(''), policy, T0 + i * 50_000)).toMatchObject({
        renewal: true,
        activeStreams: 1,
      });
    }
    expect(r.stats()).toMatchObject({ users: 1, streams: 1 });
    // Another cid, or another device, is another stream: refused while the first counts.
    const refusal = (id: StreamIdentity) => {
      try {
        r.check(id, { persistent: false, ...policy }, T0 + 500_001);
      } catch (error) {
        return error instanceof EmulatorError ? `${error.code}: ${error.message}` : String(error);
      }
      return 'issued';
    };
    expect(refusal(who('', 'other-cid'))).toMatch(
      /^STREAM_LIMIT_REACHED: .* A renewal \(a license request of this user for the same cid from the same device\) is never refused for the count\.$/,
    );
    expect(refusal(who('', CID, 'device-2'))).toMatch(/^STREAM_LIMIT_REACHED/);
    // A player's stream ID, where it sends one, is a stream of its own on the same device.
    expect(refusal(who('tab-2'))).toMatch(
      /for the same cid from the same device with the same x-drm-stream-id\) is never refused/,
    );
    // Once it stops renewing, the stream stops counting after its interval + grace (60 + 30 s).
    expect(
      r.check(who('', 'other-cid'), { persistent: false, ...policy }, T0 + 590_001),
    ).toMatchObject({
      renewal: false,
      activeStreams: 1,
    });
  });

  it('a stream ID tells apart the players of one cid on one device, and each renews its own', () => {
    const r = registry();
    const policy = { max_stream_per_user: 2 };
    expect(open(r, who('screen-1'), policy, T0)).toMatchObject({
      renewal: false,
      activeStreams: 1,
    });
    expect(open(r, who('screen-2'), policy, T0)).toMatchObject({
      renewal: false,
      activeStreams: 2,
    });
    expect(codeOf(() => r.check(who('screen-3'), { persistent: false, ...policy }, T0))).toBe(
      'STREAM_LIMIT_REACHED',
    );
    // Without an ID the request is neither screen's renewal: a third stream.
    expect(codeOf(() => r.check(who(''), { persistent: false, ...policy }, T0))).toBe(
      'STREAM_LIMIT_REACHED',
    );
    expect(open(r, who('screen-2'), policy, T0 + 80_000)).toMatchObject({ renewal: true });
    // Screen 1 stopped at T0: 90 s later it no longer counts, and a third screen starts.
    expect(open(r, who('screen-3'), policy, T0 + 90_001)).toMatchObject({
      renewal: false,
      activeStreams: 2,
    });
  });

  it('expires each stream at its own interval, whatever order they were opened in', () => {
    const r = registry();
    open(r, who('long'), { renewal_duration: 600 }, T0);
    open(r, who('short'), { renewal_duration: 20 }, T0 + 1_000);
    const policy = { persistent: false, max_stream_per_user: 2 };
    // At T0 + 51 s the short stream (1 s + 20 s + 30 s grace) no longer counts; the long one does.
    expect(r.check(who('third'), policy, T0 + 51_001)).toMatchObject({ activeStreams: 2 });
    expect(r.stats().streams).toBe(1);
  });

  describe('bounded state, whatever a client sends', () => {
    const bounded = () =>
      new StreamRegistry({
        graceSeconds: 30,
        defaultIntervalSeconds: 60,
        maxStreamsPerUser: 50,
        maxStreams: 500,
        maxEntries: 100,
      });

    it('a user sending a new stream ID on every request holds at most maxStreamsPerUser streams', () => {
      const r = bounded();
      for (let i = 0; i < 5_000; i++) open(r, who(`s-${i}`), {}, T0 + i);
      expect(r.stats()).toMatchObject({ users: 1, streams: 50 });
      expect(r.stats().pendingExpiries).toBeLessThanOrEqual(2 * 50 + 16);
      // The cap forgets the least recently renewed: the newest streams are the ones kept.
      expect(open(r, who('s-4999'), {}, T0 + 5_000).renewal).toBe(true);
      expect(open(r, who('s-0'), {}, T0 + 5_000).renewal).toBe(false);
    });

    it('renewing one stream over and over leaves no pile of stale expiries', () => {
      const r = bounded();
      for (let i = 0; i < 10_000; i++) open(r, who('same'), {}, T0 + i);
      expect(r.stats()).toMatchObject({ users: 1, streams: 1 });
      expect(r.stats().pendingExpiries).toBeLessThanOrEqual(2 * 1 + 16 + 1);
    });

    it("per-request work stays flat: no scan of the user's streams, however many it sent", () => {
      const r = new StreamRegistry({ graceSeconds: 30, defaultIntervalSeconds: 60 });
      const requests = 20_000;
      // One user, a new stream ID on every request, renewals of an old one between, all counted.
      for (let i = 0; i < requests; i++) {
        open(r, who(i % 2 === 0 ? `new-${i}` : 'kept'), {}, T0 + i * 10);
      }
      const { entriesTouched, streams } = r.stats();
      expect(streams).toBe(1_000);
      // A scan per request would touch the user's ~1,000 streams each time: 20 million.
      expect(entriesTouched).toBeLessThanOrEqual(3 * requests);
    });

    it('many users: at most maxStreams streams and maxEntries users in all', () => {
      const r = bounded();
      for (let u = 0; u < 1_000; u++) {
        for (let i = 0; i < 20; i++) open(r, { ...who(`s-${i}`), userId: `user-${u}` }, {}, T0);
      }
      const stats = r.stats();
      expect(stats.streams).toBeLessThanOrEqual(500);
      expect(stats.users).toBeLessThanOrEqual(100);
      expect(stats.pendingExpiries).toBeLessThanOrEqual(stats.users * 16 + 2 * stats.streams);
    });
  });
});

describe('streams and durations over HTTP, against the emulator clock', () => {
  let clock = T0;
  let emulator: RunningEmulator;
  const seen: FlowEvent[] = [];
  const issuer = createTokenIssuer(TOKEN_SITE);
  let user = 0;
  let userId = '';

  beforeAll(async () => {
    emulator = await startEmulator(
      {
        sites: [TOKEN_SITE],
        keys: { [CID]: { kid: KID, key: KEY }, trailer: { kid: OTHER_KID, key: KEY } },
      },
      { now: () => clock },
    );
    emulator.events.on((e) => seen.push(e));
  });
  afterAll(() => emulator.close());
  beforeEach(() => {
    clock = T0;
    userId = `user-${++user}`;
  });

  /** A license request at `at` seconds after T0, with a fresh token, as a renewing player sends it. */
  function request(
    at: number,
    playback: NonNullable<TokenPolicyV2Input['playback_policy']>,
    options: { stream?: string; cid?: string; headers?: Record<string, string> } = {},
  ) {
    clock = T0 + at * 1000;
    const cid = options.cid ?? CID;
    const token = issuer.issue({
      cid,
      userId,
      timestamp: new Date(clock),
      policy: { policy_version: 2, playback_policy: playback },
    });
    const body = JSON.stringify({
      kids: [Buffer.from(cid === CID ? KID : OTHER_KID, 'hex').toString('base64url')],
    });
    const headers: Record<string, string> = {
      ...options.headers,
      ...(options.stream === undefined ? {} : { 'x-drm-stream-id': options.stream }),
    };
    return postLicense(emulator.url, token, body, headers);
  }
  const issued = (res: { body: Record<string, unknown> }) =>
    expect(res.body['keys']).toHaveLength(1);

  it('refuses a third stream with 6003 while two renew, and serves it once one stops', async () => {
    const policy = { max_stream_per_user: 2, renewal_duration: 60 };
    issued(await request(0, policy, { stream: 'tv' }));
    issued(await request(10, policy, { stream: 'phone' }));
    const third = refusalOf(await request(20, policy, { stream: 'laptop' }));
    expect(third).toMatchObject({
      errorCode: '6003',
      message: 'Concurrent stream limit reached',
      reason: 'STREAM_LIMIT_REACHED',
      field: 'playback_policy.max_stream_per_user',
    });
    expect(third.detail).toMatch(
      /already has 2 streams that renew in time, and the policy allows 2/,
    );
    // The TV renews; the phone stops. 60 s interval + 30 s grace after its last license, it stops counting.
    issued(await request(55, policy, { stream: 'tv' }));
    expect(refusalOf(await request(100, policy, { stream: 'laptop' })).errorCode).toBe('6003');
    issued(await request(101, policy, { stream: 'laptop' }));
  });

  it('says in the license-issued event whether the request renewed a counted stream', async () => {
    const policy = { max_stream_per_user: 1, renewal_duration: 30 };
    const first = await request(0, policy, { stream: 's' });
    const renewal = await request(25, policy, { stream: 's' });
    const streamOf = (res: { headers: Headers }) =>
      seen.find(
        (e) => e.requestId === res.headers.get('x-drm-request-id') && e.type === 'license-issued',
      );
    expect(streamOf(first)).toMatchObject({
      stream: { id: 's', renewal: false, activeStreams: 1, countsForSeconds: 60 },
    });
    expect(streamOf(renewal)).toMatchObject({ stream: { id: 's', renewal: true } });
  });

  it('refuses the walk-arounds: 9 devices sharing one stream ID, 10 requests with none', async () => {
    const policy = { max_stream_per_user: 1 };
    const device = (n: number) => ({ 'user-agent': `Mozilla/5.0 device-${n} Chrome/140.0` });
    issued(await request(0, policy, { stream: 'shared', headers: device(0) }));
    for (let n = 1; n <= 9; n++) {
      const res = await request(1, policy, { stream: 'shared', headers: device(n) });
      expect(refusalOf(res).errorCode, `device ${n}`).toBe('6003');
    }
    for (let n = 0; n < 10; n++) {
      expect(refusalOf(await request(2, policy, { headers: device(0) })).errorCode).toBe('6003');
    }
    // The device that opened the stream renews it.
    issued(await request(3, policy, { stream: 'shared', headers: device(0) }));
  });

  it('without a stream ID, renewals of one device and cid keep one stream, with a fresh token each', async () => {
    const policy = { max_stream_per_user: 1, renewal_duration: 20 };
    const device = (n: number) => ({ 'user-agent': `Mozilla/5.0 device-${n} Chrome/140.0` });
    issued(await request(0, policy, { headers: device(1) }));
    // Five renewals at the interval, each with the token of its moment, nothing else in common.
    for (let at = 20; at <= 100; at += 20)
      issued(await request(at, policy, { headers: device(1) }));
    const renewals = seen.filter(
      (e) => e.type === 'license-issued' && e.userId === userId && e.stream.renewal,
    );
    expect(renewals).toHaveLength(5);
    // Another device, or another content of the same user, is a second stream: 6003.
    expect(refusalOf(await request(101, policy, { headers: device(2) })).errorCode).toBe('6003');
    expect(
      refusalOf(await request(101, policy, { headers: device(1), cid: 'trailer' })).errorCode,
    ).toBe('6003');
    // Device 1 stops: 20 s interval + 30 s grace after its last license, device 2 starts.
    expect(refusalOf(await request(150, policy, { headers: device(2) })).errorCode).toBe('6003');
    issued(await request(151, policy, { headers: device(2) }));
  });

  it('refuses a renewal after license_duration with 8711, naming license_duration', async () => {
    const policy = { license_duration: 100 };
    issued(await request(0, policy, { stream: 's' }));
    issued(await request(60, policy, { stream: 's' }));
    const over = refusalOf(await request(101, policy, { stream: 's' }));
    expect(over).toMatchObject({
      errorCode: '8711',
      message: 'Playback period is over',
      field: 'playback_policy.license_duration',
    });
    expect(over.detail).toMatch(
      /license_duration of 100 s is over: it counts from the first license of this stream, 101 s ago/,
    );
    // Another stream of the same content starts its own license_duration.
    issued(await request(101, policy, { stream: 't' }));
  });

  it('refuses any license after playback_duration since the first one with 8711, naming it', async () => {
    const policy = { playback_duration: 50 };
    issued(await request(0, policy, { stream: 'a' }));
    issued(await request(50, policy, { stream: 'b' }));
    const over = refusalOf(await request(51, policy, { stream: 'c' }));
    expect(over).toMatchObject({ errorCode: '8711', field: 'playback_policy.playback_duration' });
    expect(over.detail).toMatch(/playback_duration of 50 s is over/);
  });

  it('refuses a rental after rental_duration with 8711, naming it', async () => {
    const policy = { persistent: true, rental_duration: 3600 };
    const first = await request(0, policy);
    expect(first.body['type']).toBe('persistent-license');
    const over = refusalOf(await request(3601, policy, { stream: 'later' }));
    expect(over).toMatchObject({ errorCode: '8711', field: 'playback_policy.rental_duration' });
  });

  it('refuses once expire_date has passed with 8711, naming expire_date', async () => {
    const end = new Date(T0 + 30_000).toISOString().replace(/\.\d+Z$/, 'Z');
    issued(await request(30, { expire_date: end }));
    const over = refusalOf(await request(31, { expire_date: end }));
    expect(over).toMatchObject({ errorCode: '8711', field: 'playback_policy.expire_date' });
  });

  it('refuses a v1 duration the same way, naming duration', async () => {
    const v1 = (at: number) => {
      clock = T0 + at * 1000;
      const token = issuer.issue({
        cid: CID,
        userId,
        timestamp: new Date(clock),
        policy: { playback_policy: { limit: true, duration: 40 } },
      });
      return postLicense(emulator.url, token, undefined, { 'x-drm-stream-id': 'v1' });
    };
    issued(await v1(0));
    const over = refusalOf(await v1(41));
    expect(over).toMatchObject({ errorCode: '8711', field: 'playback_policy.duration' });
  });

  it('refuses a stream ID that is not 1 to 128 printable characters with 6005', async () => {
    const res = await request(0, {}, { stream: 'x'.repeat(129) });
    expect(refusalOf(res)).toMatchObject({ errorCode: '6005', field: 'x-drm-stream-id' });
  });

  it('takes the stream ID from the query parameter stream_id too', async () => {
    const policy = { max_stream_per_user: 1 };
    const token = () =>
      issuer.issue({
        cid: CID,
        userId,
        timestamp: new Date(clock),
        policy: { policy_version: 2, playback_policy: policy },
      });
    issued(
      await postLicense(emulator.url, token(), undefined, {}, '/ri/licenseManager.do?stream_id=a'),
    );
    const second = await postLicense(
      emulator.url,
      token(),
      undefined,
      {},
      '/ri/licenseManager.do?stream_id=b',
    );
    expect(refusalOf(second).errorCode).toBe('6003');
  });
});
