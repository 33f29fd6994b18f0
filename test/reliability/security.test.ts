// Security checks across the packages: constant-time hash comparison, no secret in any log line,
// event or error, CORS closed by default, body size limits, bounded headers and nesting.
// The demo's Electron settings are tested in demo-electron/test (main-process.test.ts: context
// isolation, sandbox, no Node integration, web security; window-open denied and navigation blocked;
// preload.test.ts and main-bundle.test.ts: named functions only, one preload file).
import * as crypto from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { startEmulator, type FlowEvent, type RunningEmulator } from '@multidrm/emulator';
import {
  createCustomData,
  createCustomDataHandler,
  createGatewayHandler,
  createTokenHandler,
  createTokenIssuer,
  decodeGatewayResponse,
  encrypt,
  toNodeListener,
  verifyLicenseToken,
  type WebHandler,
} from '@multidrm/site-kit';
import { run as runCli } from '../../packages/site-kit/src/cli/run.ts';

vi.mock('node:crypto', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:crypto')>();
  return { ...actual, timingSafeEqual: vi.fn(actual.timingSafeEqual) };
});

// Made up for this test: 32 ASCII characters, as a site key must be.
const SITE = {
  siteId: 'SECSITE',
  siteKey: 'S3cr3tS1teK3yZZ0123456789abcdefx',
  accessKey: 'S3cr3t-access-key-do-not-log',
};
const KID = 'c0ffee00c0ffee00c0ffee00c0ffee00';
const KEY = '5ec2e75ec2e75ec2e75ec2e75ec2e75e';
const CID = 'sec-movie';

describe('hashes are compared in constant time', () => {
  test('verifying a token compares its hash with timingSafeEqual, right or wrong', () => {
    const spy = vi.mocked(crypto.timingSafeEqual);
    const token = createTokenIssuer(SITE).issue({ cid: CID });
    spy.mockClear();
    verifyLicenseToken(token, SITE);
    expect(spy).toHaveBeenCalledTimes(1);
    const json = JSON.parse(Buffer.from(token, 'base64').toString()) as { hash: string };
    const forged = Buffer.from(
      JSON.stringify({ ...json, hash: `${json.hash.slice(0, -4)}AAA=` }),
    ).toString('base64');
    spy.mockClear();
    expect(() => verifyLicenseToken(forged, SITE)).toThrow(
      expect.objectContaining({ code: 'HASH_MISMATCH' }),
    );
    expect(spy).toHaveBeenCalled();
  });

  test('a hash of another length is still compared with timingSafeEqual', () => {
    const spy = vi.mocked(crypto.timingSafeEqual);
    const token = createTokenIssuer(SITE).issue({ cid: CID });
    const json = JSON.parse(Buffer.from(token, 'base64').toString()) as { hash: string };
    const short = Buffer.from(JSON.stringify({ ...json, hash: 'QUJD' })).toString('base64');
    spy.mockClear();
    expect(() => verifyLicenseToken(short, SITE)).toThrow();
    expect(spy).toHaveBeenCalled();
  });
});

// --- A whole scenario, every output captured --------------------------------------------------

let site: Server;
let siteUrl: string;
let emulator: RunningEmulator;
const siteLog: string[] = [];
const flow: FlowEvent[] = [];
const internal: unknown[] = [];

function listen(server: Server): Promise<string> {
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`),
    ),
  );
}

const log = (source: string) => (event: unknown) =>
  siteLog.push(`${source} ${JSON.stringify(event)}`);
const handlers: Record<string, WebHandler> = {
  '/token': createTokenHandler({
    ...SITE,
    authorize: () => ({
      allow: true,
      userId: 'sec-user',
      policy: { external_key: { mpeg_cenc: { key_id: KID, key: KEY } } },
    }),
    onEvent: log('token'),
  }),
  '/custom-data': createCustomDataHandler({
    siteId: SITE.siteId,
    siteKey: SITE.siteKey,
    authorize: () => ({ allow: true, userId: 'sec-user' }),
    onEvent: log('custom-data'),
  }),
  '/gateway': createGatewayHandler({
    siteKey: SITE.siteKey,
    authorize: (req) =>
      req.user_id === 'thrower'
        ? Promise.reject(new Error(`db down (connect with ${SITE.accessKey})`))
        : {
            allow: true,
            playback_policy: { limit: false },
            external_key: { mpeg_cenc: { key_id: KID, key: KEY } },
          },
    onEvent: log('gateway'),
  }),
};

beforeAll(async () => {
  const listeners = Object.fromEntries(
    Object.entries(handlers).map(([path, h]) => [path, toNodeListener(h)]),
  );
  site = createServer((req, res) => {
    const listener = listeners[req.url ?? ''];
    if (listener) void listener(req, res);
    else res.writeHead(404).end();
  });
  siteUrl = await listen(site);
  emulator = await startEmulator(
    {
      sites: [{ ...SITE, gatewayUrl: `${siteUrl}/gateway` }],
      keys: { [CID]: { kid: KID, key: KEY } },
    },
    { onInternalError: (e) => internal.push(e) },
  );
  emulator.events.on((e) => flow.push(e));
});

afterAll(async () => {
  await emulator.close();
  site.closeAllConnections();
  await new Promise((r) => site.close(r));
});

const post = (url: string, body: string, headers: Record<string, string> = {}) =>
  fetch(url, {
    method: 'POST',
    body,
    // What a player sends (the site endpoints refuse other content types with 415).
    headers: { 'content-type': 'application/json', ...headers },
    signal: AbortSignal.timeout(5_000),
  });
const clearKeyBody = JSON.stringify({ kids: [Buffer.from(KID, 'hex').toString('base64url')] });

describe('no key or full token in any log line, event, error message or CLI output', () => {
  test('a scenario of successes and failures leaves no secret in what it printed', async () => {
    const seen: string[] = [];
    const keep = async (response: Response) => {
      seen.push(`${response.status} ${[...response.headers].join(' ')} ${await response.text()}`);
    };
    const secrets: string[] = [SITE.siteKey, SITE.accessKey, KEY, KEY.toUpperCase()];
    secrets.push(
      Buffer.from(KEY, 'hex').toString('base64url'),
      Buffer.from(KEY, 'hex').toString('base64'),
    );

    // Token mode: a good token, an expired one, a forged one, garbage.
    const token = await (
      await post(`${siteUrl}/token`, JSON.stringify({ cid: CID, drm_type: 'Widevine' }))
    ).text();
    secrets.push(token);
    const expired = createTokenIssuer(SITE).issue({ cid: CID, timestamp: '2020-01-01T00:00:00Z' });
    secrets.push(expired);
    const json = JSON.parse(Buffer.from(token, 'base64').toString()) as Record<string, string>;
    const forged = Buffer.from(JSON.stringify({ ...json, user_id: 'mallory' })).toString('base64');
    secrets.push(forged, json['token'] as string);
    for (const header of [token, expired, forged, 'not-a-token'])
      await keep(await post(emulator.licenseUrl, clearKeyBody, { 'x-drm-custom-data': header }));

    // Gateway mode: a good callback, one whose authorize throws with a key in its message, one with
    // custom data made with the wrong key.
    const customData = await (
      await post(`${siteUrl}/custom-data`, JSON.stringify({ cid: CID, drm_type: 'PlayReady' }))
    ).text();
    const thrower = createCustomData({ ...SITE, drmType: 'Widevine', userId: 'thrower', cid: CID });
    const wrongKey = createCustomData({
      ...SITE,
      siteKey: 'x'.repeat(32),
      drmType: 'Widevine',
      userId: 'u',
      cid: CID,
    });
    secrets.push(customData, thrower, wrongKey);
    for (const header of [customData, thrower, wrongKey])
      await keep(await post(emulator.licenseUrl, clearKeyBody, { 'x-drm-custom-data': header }));
    // The gateway itself fed garbage and a bad request.
    await keep(await post(`${siteUrl}/gateway`, 'data=AAAA'));
    const broken = encrypt('{"user_id":"u","nonce":"n"}', SITE.siteKey);
    await keep(await post(`${siteUrl}/gateway`, `data=${encodeURIComponent(broken)}`));

    // The CLI: create and inspect a token with the keys from the environment.
    const cli: string[] = [];
    const io = {
      stdout: (t: string) => cli.push(t),
      stderr: (t: string) => cli.push(t),
      readStdin: async () => '',
      readFile: async () => '',
      env: {
        MULTIDRM_SITE_ID: SITE.siteId,
        MULTIDRM_SITE_KEY: SITE.siteKey,
        MULTIDRM_ACCESS_KEY: SITE.accessKey,
      },
      now: Date.now,
    };
    await runCli(['token', 'inspect', token], io);
    await runCli(['token', 'inspect', forged], io);
    await runCli(['token', 'inspect', expired], io);
    await runCli(['decrypt', 'AAAAAAAAAAAAAAAAAAAAAA=='], io);

    // Error messages thrown by the library itself.
    const thrown: string[] = [];
    for (const t of [forged, expired, 'garbage']) {
      try {
        verifyLicenseToken(t, SITE);
      } catch (error) {
        thrown.push(String(error), JSON.stringify(error));
      }
    }
    try {
      decodeGatewayResponse(encrypt('{"nonce":1}', SITE.siteKey), 'json', SITE.siteKey);
    } catch (error) {
      thrown.push(String(error));
    }

    // The scenario did what it should: one license each way, failures with their codes.
    // License refusals come as the service sends them: HTTP 200 with the service's errorCode.
    const codes = seen.map((s) => /"errorCode":"(\d+)"/.exec(s)?.[1] ?? s.slice(0, 3));
    expect(codes).toEqual(['200', '7011', '7019', '7009', '200', '8002', '7008', '400', '200']);
    // What authorize threw is the site's own text: the log gets its class, never its message.
    expect(siteLog.some((l) => l.includes('authorize threw an error of class Error'))).toBe(true);
    expect(siteLog.some((l) => l.includes('db down'))).toBe(false);

    // Successful answers carry the key (that is their job): only the others are scanned.
    const outputs = [
      ...siteLog,
      ...flow.map((e) => JSON.stringify(e)),
      ...seen.filter((s) => !s.startsWith('200')),
      ...cli,
      ...thrown,
      ...internal.map(String),
    ];
    expect(outputs.length).toBeGreaterThan(30);
    for (const secret of secrets) {
      const leaks = outputs.filter((line) => line.includes(secret));
      expect(leaks, `a secret (${secret.length} characters) appears`).toEqual([]);
    }
  }, 15_000);
});
