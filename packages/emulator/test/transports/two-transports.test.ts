import { setupServer } from 'msw/node';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  startEmulator,
  type FaultPlan,
  type FlowEvent,
  type RunningEmulator,
} from '../../src/index.ts';
import { licenseServiceHandlers } from '../../src/msw/index.ts';
import {
  allowJson,
  JSON_SITE,
  KEY,
  KID,
  b64url,
  startTestGateway,
  type TestGateway,
} from '../helpers.ts';
import { httpTable, requestInit, tableConfig, type Expected } from './http-table.ts';

/** A door to the emulator: where to send requests, its faults and its flow. */
interface Transport {
  base: string;
  faults: FaultPlan;
  flow: FlowEvent[];
}

let gateway: TestGateway;
let running: RunningEmulator;
const server = setupServer();
const MSW_BASE = 'https://license-service.test';

const transports: Record<'HTTP server' | 'msw handlers', Transport> = {
  'HTTP server': { base: '', faults: undefined as unknown as FaultPlan, flow: [] },
  'msw handlers': { base: MSW_BASE, faults: undefined as unknown as FaultPlan, flow: [] },
};

beforeAll(async () => {
  gateway = await startTestGateway(JSON_SITE.siteKey, 'json', (request) => allowJson(request));
  const config = tableConfig(gateway.url);
  running = await startEmulator(config);
  const http = transports['HTTP server'];
  http.base = running.url;
  http.faults = running.faults;
  running.events.on((event) => http.flow.push(event));

  const handlers = licenseServiceHandlers(config, { baseUrl: MSW_BASE });
  const mocked = transports['msw handlers'];
  mocked.faults = handlers.faults;
  handlers.events.on((event) => mocked.flow.push(event));
  // The gateway is a real server on 127.0.0.1: the emulator's callback passes through msw.
  server.use(...handlers);
  server.listen({ onUnhandledFrame: 'bypass' });
});
afterAll(async () => {
  server.close();
  await running.close();
  await gateway.close();
});

async function check(response: Response, expected: Expected): Promise<void> {
  const text = await response.text();
  expect(response.status, text).toBe(expected.status);
  if (expected.bodyContains !== undefined) expect(text).toContain(expected.bodyContains);
  if (expected.errorCode !== undefined) {
    const body = JSON.parse(text) as Record<string, unknown>;
    expect(body['errorCode']).toBe(expected.errorCode);
    if (expected.reason !== undefined) expect(body['reason']).toBe(expected.reason);
    expect(response.headers.get('x-drm-error-code')).toBeNull();
  }
  if (expected.licensed) {
    expect(JSON.parse(text)).toEqual({
      keys: [{ kty: 'oct', kid: b64url(KID), k: b64url(KEY) }],
      type: 'temporary',
    });
    expect(response.headers.get('x-drm-license-policy')).not.toBeNull();
  }
  if (expected.transportError !== undefined) {
    expect((JSON.parse(text) as { error_code: string }).error_code).toBe(expected.transportError);
    expect(response.headers.get('x-drm-error-code')).toBe(expected.transportError);
  }
}

describe.each(Object.keys(transports) as (keyof typeof transports)[])(
  'the shared HTTP table through the %s',
  (name) => {
    const transport = () => transports[name];
    beforeEach(() => transport().faults.clear());

    it.each(httpTable().map((row) => [row.name, row] as const))('%s', async (_, row) => {
      const t = transport();
      t.faults.set(row.faults ?? []);
      let requestId: string | null = null;
      for (const [i, request] of row.requests.entries()) {
        const response = await fetch(
          `${t.base}${request.path ?? '/ri/licenseManager.do'}`,
          requestInit(request),
        );
        requestId = response.headers.get('x-drm-request-id');
        await check(response, row.expected[i] as Expected);
      }
      if (row.flow !== undefined) {
        const types = t.flow.filter((e) => e.requestId === requestId).map((e) => e.type);
        expect(types).toEqual(row.flow);
      }
    });
  },
);
