import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createEmulatorHandler, startEmulator } from '@multidrm/emulator';
import {
  createCustomDataHandler,
  createGatewayHandler,
  createTokenHandler,
  toNodeListener,
  type WebHandler,
} from '@multidrm/site-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sweepHttp, sweepWebHandler, type SweepReport } from '../support/malformed-sweep.ts';

// Issue 30, point 6: no 5xx and no internal-error log line for any input. The sweep
// (support/malformed-sweep.ts) covers any shipped server; here site-kit's handlers over raw HTTP and
// the emulator's transport-free handler and its real node:http server (TRACE and hang-ups included).

const SITE = {
  siteId: 'SWEEP',
  siteKey: 'Sw3Ep5Ty7Ui9Op1As2Df4Gh6Jk8Lz0Xc',
  accessKey: 'sweep-access-key',
};
const KID = '00112233445566778899aabbccddeeff';

/** What a clean sweep looks like: every request answered, none with a 5xx. */
function expectClean(report: SweepReport): void {
  expect(report.serverErrors).toEqual([]);
  expect(report.unanswered).toEqual([]);
  expect(report.sent).toBeGreaterThan(0);
}

describe('site-kit handlers over raw HTTP', () => {
  const internal: string[] = [];
  let origin: string;
  let close: () => Promise<void>;

  beforeAll(async () => {
    // Anything a handler reports as its own failure counts as an internal-error line.
    const onEvent = (event: { type: string; status?: number }) => {
      if (event.type === 'error' && (event.status ?? 0) >= 500)
        internal.push(JSON.stringify(event));
    };
    const onError = (error: unknown) => internal.push(String(error));
    const routes: Record<string, WebHandler> = {
      '/token': createTokenHandler({
        ...SITE,
        authorize: () => ({ allow: true, userId: 'u' }),
        onEvent,
        onError,
        cors: { origins: ['http://127.0.0.1'] },
      }),
      '/custom-data': createCustomDataHandler({
        siteId: SITE.siteId,
        siteKey: SITE.siteKey,
        authorize: () => ({ allow: true, userId: 'u' }),
        onEvent,
        onError,
      }),
      '/gateway': createGatewayHandler({
        siteKey: SITE.siteKey,
        authorize: () => ({ allow: false, error_code: '4999', error_message: 'sweep' }),
        onAuthorizeError: onError,
      }),
    };
    const listeners = new Map(Object.entries(routes).map(([p, h]) => [p, toNodeListener(h)]));
    const server = createServer((req, res) => {
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      const listener = listeners.get(path.replace(/\/$/, ''));
      if (listener === undefined) return void res.writeHead(404).end();
      listener(req, res);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    close = async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    };
  });
  afterAll(() => close());

  it('200 malformed requests per endpoint: no 5xx, every one answered, no internal error', async () => {
    const report = await sweepHttp(origin, ['/token', '/custom-data', '/gateway'], {
      perPath: 200,
    });
    expectClean(report);
    // The sweep reached refusals of every kind, not one kind only.
    expect(Object.keys(report.statuses).map(Number)).toEqual(
      expect.arrayContaining([400, 403, 405, 413, 415]),
    );
    expect(internal).toEqual([]);
  }, 60_000);
});

describe("the emulator's transport-free handler", () => {
  it('300 malformed requests per path: no 5xx, no internal error', async () => {
    const internal: unknown[] = [];
    const handler = createEmulatorHandler(
      {
        sites: [SITE, { ...SITE, siteId: 'SWEEPGW', gatewayUrl: 'http://127.0.0.1:9/gateway' }],
        keys: { m: { kid: KID, key: KID } },
        allowedOrigins: ['http://127.0.0.1'],
      },
      { onInternalError: (error) => internal.push(error) },
    );
    const paths = [
      '/ri/licenseManager.do',
      '/ri/clearkey/licenseManager.do',
      '/license',
      '/events',
      '/health',
      '/nope',
    ];
    const report = await sweepWebHandler(handler, paths, { perPath: 300 });
    handler.events.close();
    expectClean(report);
    expect(Object.keys(report.statuses).map(Number)).toEqual(
      expect.arrayContaining([200, 204, 403, 404, 405, 413]),
    );
    expect(internal).toEqual([]);
  }, 60_000);
});

describe("the emulator's HTTP server, as `multidrm-emulator` runs it", () => {
  it('200 malformed requests per path over raw HTTP: no 5xx, every one answered, no internal error', async () => {
    // What the CLI prints as "internal error: ..." goes through onInternalError: none may come.
    const internal: unknown[] = [];
    const emulator = await startEmulator(
      {
        sites: [SITE, { ...SITE, siteId: 'SWEEPGW', gatewayUrl: 'http://127.0.0.1:9/gateway' }],
        keys: { m: { kid: KID, key: KID } },
        allowedOrigins: ['http://127.0.0.1'],
      },
      { onInternalError: (error) => internal.push(error) },
    );
    try {
      const report = await sweepHttp(
        emulator.url,
        ['/ri/licenseManager.do', '/license', '/ri/widevineCert.do', '/health', '/nope'],
        { perPath: 200 },
      );
      expectClean(report);
      expect(Object.keys(report.statuses).map(Number)).toEqual(
        expect.arrayContaining([200, 404, 405, 413]),
      );
      expect(internal).toEqual([]);
    } finally {
      await emulator.close();
    }
  }, 60_000);
});
