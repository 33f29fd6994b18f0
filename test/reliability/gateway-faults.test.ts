// Faults of the site's gateway as the emulator meets them: slow, silent, garbage, a wrong nonce, a
// closed connection, an error status, nobody listening. Each gives its own error code within the
// emulator's gatewayTimeoutMs, and no callback is left open behind it.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startEmulator, type RunningEmulator } from '@multidrm/emulator';
import {
  createCustomData,
  createGatewayHandler,
  decodeGatewayRequest,
  encodeGatewayAnswer,
  toNodeListener,
} from '@multidrm/site-kit';

// Made up for this test: 32 ASCII characters, as a site key must be.
const SITE_KEY = 'fA1lT5gW9yX3cZ7vB2nM6kJ0hG4dS8qE';
const KID = '0123456789abcdef0123456789abcdef';
const KEY = 'fedcba9876543210fedcba9876543210';
const TIMEOUT_MS = 300;

type Fault = 'ok' | 'slow' | 'silent' | 'garbage' | 'wrong-nonce' | 'close' | 'status-500';
const FAULTS: Fault[] = ['ok', 'slow', 'silent', 'garbage', 'wrong-nonce', 'close', 'status-500'];

const realGateway = toNodeListener(
  createGatewayHandler({
    siteKey: SITE_KEY,
    authorize: () => ({ allow: true, playback_policy: { limit: false } }),
  }),
);

// Callbacks the gateway received and when each one's connection closed: none may stay open.
const callbacks: Array<{ fault: string; closed: boolean }> = [];

function faultyGateway(req: IncomingMessage, res: ServerResponse): void {
  const fault = (req.url ?? '/').slice(1) as Fault;
  const seen = { fault, closed: false };
  callbacks.push(seen);
  res.on('close', () => (seen.closed = true));
  if (fault === 'ok') return void realGateway(req, res);
  if (fault === 'slow') {
    setTimeout(() => void realGateway(req, res), TIMEOUT_MS * 4).unref();
    return;
  }
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const request = decodeGatewayRequest(Buffer.concat(chunks).toString(), SITE_KEY);
    if (fault === 'silent') return;
    if (fault === 'close') return void req.socket.destroy();
    if (fault === 'status-500') return void res.writeHead(500).end('Internal Server Error');
    if (fault === 'garbage') {
      res.writeHead(200, { 'content-type': 'text/html' });
      return void res.end('<html><body>Welcome!</body></html>');
    }
    const answer = encodeGatewayAnswer(
      {
        format: 'json',
        error_code: '0000',
        error_message: '',
        playback_policy: { limit: false },
        nonce: `${request.format === 'json' ? request.nonce : ''}-replayed`,
      },
      SITE_KEY,
    );
    res.writeHead(200, { 'content-type': 'text/plain' }).end(answer);
  });
}

let gateway: Server;
let emulator: RunningEmulator;
let deadUrl: string;

beforeAll(async () => {
  gateway = createServer(faultyGateway);
  await new Promise<void>((resolve) => gateway.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(gateway.address() as AddressInfo).port}`;
  // A port that was just free: nobody listens there.
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  deadUrl = `http://127.0.0.1:${(probe.address() as AddressInfo).port}/gateway`;
  await new Promise((resolve) => probe.close(resolve));
  emulator = await startEmulator({
    sites: [
      ...FAULTS.map((fault) => ({
        siteId: fault.toUpperCase(),
        siteKey: SITE_KEY,
        accessKey: 'fault-access-key',
        gatewayUrl: `${base}/${fault}`,
      })),
      { siteId: 'DOWN', siteKey: SITE_KEY, accessKey: 'fault-access-key', gatewayUrl: deadUrl },
    ],
    keys: { movie: { kid: KID, key: KEY } },
    gatewayTimeoutMs: TIMEOUT_MS,
  });
});

afterAll(async () => {
  await emulator.close();
  gateway.closeAllConnections();
  await new Promise((resolve) => gateway.close(resolve));
});

async function license(siteId: string) {
  const customData = createCustomData({
    siteId,
    siteKey: SITE_KEY,
    drmType: 'Widevine',
    userId: 'user-1',
    cid: 'movie',
  });
  const started = performance.now();
  const response = await fetch(emulator.licenseUrl, {
    method: 'POST',
    headers: { 'x-drm-custom-data': customData },
    body: JSON.stringify({ kids: [Buffer.from(KID, 'hex').toString('base64url')] }),
    signal: AbortSignal.timeout(5_000),
  });
  const body = (await response.json()) as { errorCode?: string; reason?: string; detail?: string };
  return { status: response.status, body, ms: performance.now() - started };
}

// The service's dialect: every refusal is HTTP 200 with the service's code; the emulator's own named
// reason and the detail ride along, so each fault is still told apart.
describe('each gateway fault gives the service code and its own reason, and nothing hangs', () => {
  test('a healthy gateway (the control): the license is issued', async () => {
    const { status, body } = await license('OK');
    expect(status).toBe(200);
    expect(body).toHaveProperty('keys');
  });

  test.each([
    [
      'SLOW',
      'answers after 4 x gatewayTimeoutMs',
      '8701',
      'GATEWAY_TIMEOUT',
      /did not answer within 300 ms/,
    ],
    ['SILENT', 'never answers', '8701', 'GATEWAY_TIMEOUT', /did not answer within 300 ms/],
    ['GARBAGE', 'answers an HTML page', '8706', 'GATEWAY_DECRYPT_FAILED', /does not decrypt/],
    ['WRONG-NONCE', 'answers with another nonce', '8004', 'NONCE_MISMATCH', /another nonce/],
    ['CLOSE', 'closes the connection', '8701', 'GATEWAY_UNREACHABLE', /could not be reached/],
    ['STATUS-500', 'answers HTTP 500', '8701', 'GATEWAY_BAD_STATUS', /answered HTTP 500/],
    [
      'DOWN',
      'is not listening',
      '8701',
      'GATEWAY_UNREACHABLE',
      /could not be reached \(ECONNREFUSED\)/,
    ],
  ])(
    'the gateway of %s %s: %s (%s)',
    async (siteId, _what, errorCode, reason, says) => {
      const { status, body } = await license(siteId);
      expect([status, body.errorCode, body.reason]).toEqual([200, errorCode, reason]);
      expect(body.detail).toMatch(says);
    },
    5_000,
  );

  test('a timed-out callback is cut by the emulator, not left open at the gateway', async () => {
    await license('SILENT');
    await expect.poll(() => callbacks.filter((c) => !c.closed).map((c) => c.fault)).toEqual([]);
  });

  test('after every fault, the next healthy callback still gets its license', async () => {
    const { status } = await license('OK');
    expect(status).toBe(200);
  });
});
