import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createCustomData, createTokenIssuer } from '@multidrm/site-kit';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../src/cli/run.ts';
import { createFlowRecorder } from '../src/events.ts';
import {
  ConfigError,
  createEmulatorHandler,
  FaultPlan,
  FlowEvents,
  parseConfig,
  type RunningEmulator,
} from '../src/index.ts';
import { licenseServiceHandlers, siteHandlers } from '../src/msw/index.ts';
import { CID, clearKeyRequest, JSON_SITE, KEY, KID, postLicense, TOKEN_SITE } from './helpers.ts';

const issuer = createTokenIssuer(TOKEN_SITE);
const token = () => issuer.issue({ cid: CID });
const keys = { [CID]: { kid: KID, key: KEY } };
const licenseRequest = (value: string) =>
  new Request('http://emulator.test/ri/licenseManager.do', {
    method: 'POST',
    headers: { 'x-drm-custom-data': value },
    body: clearKeyRequest(KID),
  });
const flow = () => createFlowRecorder(new FlowEvents(), 'test');

describe('the fault vocabulary in the config', () => {
  it('fills in the defaults of a fault', () => {
    const config = parseConfig({
      sites: [TOKEN_SITE],
      faults: [{ fault: 'gateway-refusal' }, { fault: 'http-error', times: 2 }],
    });
    expect(config.faults).toEqual([
      { fault: 'gateway-refusal', siteCode: '4031', message: 'Refused by the site' },
      { fault: 'http-error', status: 503, times: 2 },
    ]);
  });

  it.each([
    [{ fault: 'expired' }, 'config.faults.0.fault: must be one of token-expired, wrong-hash'],
    ['slow', 'config.faults.0: must be an object {"fault": <one of token-expired'],
    [{ fault: 'slow' }, 'config.faults.0.ms: must be a number of milliseconds'],
    [
      { fault: 'http-error', status: 404 },
      'config.faults.0.status: must be an HTTP status from 500 to 599',
    ],
    [{ fault: 'token-expired', times: 0 }, 'config.faults.0.times: must be 1 or more'],
    [
      { fault: 'gateway-refusal', siteCode: '0000' },
      'config.faults.0.siteCode: must not be "0000"',
    ],
    [
      { fault: 'refuse', reason: 'NOT_FOUND' },
      'config.faults.0.reason: must be one of the refusal reasons',
    ],
    [{ fault: 'token-expired', after: 2 }, 'config.faults.0: unknown member "after"'],
  ])('refuses a bad fault naming its field (%#)', (fault, says) => {
    const input = { sites: [TOKEN_SITE], faults: [fault] };
    expect(() => parseConfig(input)).toThrow(ConfigError);
    expect(() => parseConfig(input)).toThrow(says);
  });
});

describe('FaultPlan', () => {
  it('applies a fault with times to that many requests, then lets the others through', () => {
    const plan = new FaultPlan([{ fault: 'token-expired', times: 2 }]);
    const f = flow();
    expect(plan.strike('token', f)?.fault).toBe('token-expired');
    expect(plan.list()).toEqual([{ fault: { fault: 'token-expired', times: 2 }, remaining: 1 }]);
    expect(plan.strike('token', f)?.fault).toBe('token-expired');
    expect(plan.strike('token', f)).toBeUndefined();
    expect(plan.list()).toEqual([]);
  });

  it('neither uses nor counts a fault at a stage it does not belong to', () => {
    const plan = new FaultPlan([{ fault: 'token-expired', times: 1 }]);
    expect(plan.strike('custom-data', flow())).toBeUndefined();
    expect(plan.list()).toHaveLength(1);
  });

  it('takes the first fault of a stage, in order, and reports it as an event', () => {
    const events = new FlowEvents();
    const plan = new FaultPlan([{ fault: 'wrong-hash', times: 1 }, { fault: 'token-expired' }]);
    const f = createFlowRecorder(events, 'r1');
    expect(plan.strike('token', f)?.fault).toBe('wrong-hash');
    expect(plan.strike('token', f)?.fault).toBe('token-expired');
    expect(events.recent()).toMatchObject([
      { type: 'fault-injected', fault: 'wrong-hash', stage: 'token', remaining: 0, parameters: {} },
      { type: 'fault-injected', fault: 'token-expired', stage: 'token', parameters: {} },
    ]);
    expect(events.recent()[1]).not.toHaveProperty('remaining');
  });

  it('refuses bad faults given at run time with the same sentences as the config', () => {
    const plan = new FaultPlan();
    expect(() => plan.add({ fault: 'slow', ms: -1 } as never)).toThrow(
      'faults.0.ms: must not be negative',
    );
    expect(plan.list()).toEqual([]);
  });
});

describe('faults through the emulator handler', () => {
  it('in the explain dialect, an injected refusal is the 4xx of its reason', async () => {
    const handler = createEmulatorHandler(
      { sites: [TOKEN_SITE], keys, dialect: 'explain' },
      { faults: [{ fault: 'wrong-hash' }] },
    );
    const response = await handler(licenseRequest(token()));
    expect(response.status).toBe(403);
    expect(response.headers.get('x-drm-error-code')).toBe('HASH_MISMATCH');
    const body = (await response.json()) as { detail: Record<string, unknown> };
    expect(body.detail).toMatchObject({ fault: 'wrong-hash', injected: true });
  });

  it('names the fault in the license-denied event, beside the code the client got', async () => {
    const handler = createEmulatorHandler(
      { sites: [TOKEN_SITE], keys },
      { faults: [{ fault: 'unknown-site' }] },
    );
    await handler(licenseRequest(token()));
    expect(handler.events.recent().find((e) => e.type === 'license-denied')).toMatchObject({
      errorCode: '1003',
      reason: 'UNKNOWN_SITE',
      facts: { fault: 'unknown-site' },
    });
  });

  it('a token fault does not touch gateway-mode custom data', async () => {
    const handler = createEmulatorHandler(
      { sites: [{ ...JSON_SITE, gatewayUrl: 'http://127.0.0.1:9/gateway' }], keys },
      { faults: [{ fault: 'token-expired', times: 1 }] },
    );
    const customData = createCustomData({
      siteId: JSON_SITE.siteId,
      siteKey: JSON_SITE.siteKey,
      drmType: 'Widevine',
      userId: 'u',
      cid: CID,
    });
    const body = (await (await handler(licenseRequest(customData))).json()) as {
      reason: string;
    };
    expect(body.reason).toBe('GATEWAY_UNREACHABLE');
    expect(handler.faults.list()).toHaveLength(1);
  });
});

describe('the kit options', () => {
  it('refuses a bad config with the CLI config error', () => {
    expect(() => licenseServiceHandlers({ sites: [] })).toThrow(ConfigError);
    expect(() => licenseServiceHandlers({ sites: [] })).toThrow(
      'config.sites: must name at least one site',
    );
  });

  it.each(['https://license.test/drm', 'license.test', 'ftp://license.test'])(
    'refuses a baseUrl that is not an origin with a sentence (%s)',
    (baseUrl) => {
      expect(() => licenseServiceHandlers({ sites: [TOKEN_SITE] }, { baseUrl })).toThrow(
        /baseUrl must be (an origin|an absolute http\(s\) URL)/,
      );
      expect(() => siteHandlers({ site: TOKEN_SITE, baseUrl })).toThrow(/baseUrl must be/);
    },
  );

  it('answers any origin by default, and only the listed ones when allowedOrigins is set', async () => {
    const open = licenseServiceHandlers({ sites: [TOKEN_SITE] });
    const closed = licenseServiceHandlers({
      sites: [TOKEN_SITE],
      allowedOrigins: ['http://player.test'],
    });
    const from = (origin: string) =>
      new Request(open.licenseUrl, { method: 'POST', headers: { origin }, body: '' });
    expect((await open.handler(from('http://other.test'))).status).toBe(200);
    expect((await closed.handler(from('http://other.test'))).status).toBe(403);
    expect(open.licenseUrl).toBe('https://license-service.test/ri/licenseManager.do');
  });
});

describe('faults in the CLI config file', () => {
  const dir = mkdtempSync(join(tmpdir(), 'multidrm-emulator-faults-'));
  let running: RunningEmulator | undefined;
  afterAll(async () => {
    await running?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('refuses the first request with the configured fault, then accepts', async () => {
    const file = join(dir, 'emulator.json');
    writeFileSync(
      file,
      JSON.stringify({ sites: [TOKEN_SITE], keys, faults: [{ fault: 'token-expired', times: 1 }] }),
    );
    const lines: string[] = [];
    const started = await runCli(['--config', file], {
      out: (line) => lines.push(line),
      err: (line) => lines.push(line),
    });
    if (typeof started === 'number') throw new Error(lines.join('\n'));
    running = started;
    const first = await postLicense(started.url, token());
    const second = await postLicense(started.url, token());
    expect(first.body).toMatchObject({ errorCode: '7011', reason: 'TOKEN_EXPIRED' });
    expect(second.body).toHaveProperty('keys');
    expect(lines.some((line) => line.includes('fault-injected'))).toBe(true);
  });
});
