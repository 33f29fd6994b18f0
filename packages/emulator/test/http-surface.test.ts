import { createTokenIssuer } from '@multidrm/site-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type FlowEvent, type RunningEmulator } from '../src/index.ts';
import { CID, KEY, KID, postLicense, refusalOf, TOKEN_SITE } from './helpers.ts';

let emulator: RunningEmulator;
let custom: RunningEmulator;
const issuer = createTokenIssuer(TOKEN_SITE);

beforeAll(async () => {
  emulator = await startEmulator({ sites: [TOKEN_SITE], keys: { [CID]: { kid: KID, key: KEY } } });
  custom = await startEmulator({
    sites: [TOKEN_SITE],
    keys: { [CID]: { kid: KID, key: KEY } },
    customDataHeader: 'X-License-Token',
    allowedOrigins: ['*'],
  });
});
afterAll(async () => {
  await emulator.close();
  await custom.close();
});

/** Reads server-sent events until `enough` says stop, or fails after 3 s. */
async function readEvents(
  url: string,
  enough: (events: FlowEvent[]) => boolean,
  act: () => Promise<void>,
) {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), 3000);
  const response = await fetch(`${url}/events`, { signal: controller.signal });
  expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
  const reader = (response.body as ReadableStream<Uint8Array>)
    .pipeThrough(new TextDecoderStream())
    .getReader();
  const events: FlowEvent[] = [];
  const names: string[] = [];
  let buffer = '';
  await act();
  try {
    while (!enough(events)) {
      const { done, value } = await reader.read();
      if (done) break;
      buffer += value;
      let end: number;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const frame = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const data = /^data: (.*)$/m.exec(frame)?.[1];
        const name = /^event: (.*)$/m.exec(frame)?.[1];
        if (data !== undefined && name !== undefined) {
          events.push(JSON.parse(data) as FlowEvent);
          names.push(name);
        }
      }
    }
  } finally {
    clearTimeout(timer);
    controller.abort();
  }
  return { events, names };
}

describe('GET /events', () => {
  it('streams the flow of a license request as server-sent events named by type', async () => {
    let requestId: string | null = null;
    const { events, names } = await readEvents(
      emulator.url,
      (es) => es.some((e) => e.requestId === requestId && e.type === 'license-issued'),
      async () => {
        const res = await postLicense(emulator.url, issuer.issue({ cid: CID }));
        requestId = res.headers.get('x-drm-request-id');
      },
    );
    const flow = events.filter((e) => e.requestId === requestId);
    expect(flow.map((e) => e.type)).toEqual(['license-request', 'token-checked', 'license-issued']);
    expect(names).toEqual(events.map((e) => e.type));
    expect(JSON.stringify(flow)).not.toContain(Buffer.from(KEY, 'hex').toString('base64url'));
  });

  it("streams a refusal with the service's code and our explanation side by side", async () => {
    let requestId: string | null = null;
    const expired = issuer.issue({ cid: CID, timestamp: '2020-01-01T00:00:00Z' });
    const { events } = await readEvents(
      emulator.url,
      (es) => es.some((e) => e.requestId === requestId && e.type === 'license-denied'),
      async () => {
        const res = await postLicense(emulator.url, expired);
        requestId = res.headers.get('x-drm-request-id');
      },
    );
    const flow = events.filter((e) => e.requestId === requestId);
    expect(flow.map((e) => e.type)).toEqual(['license-request', 'token-checked', 'license-denied']);
    expect(flow[1]).toMatchObject({ ok: false, errorCode: '7011', reason: 'TOKEN_EXPIRED' });
    expect(flow[2]).toMatchObject({
      status: 200,
      errorCode: '7011',
      reason: 'TOKEN_EXPIRED',
      message: 'Token expired',
      field: 'timestamp',
      detail: expect.stringMatching(/^The token expired \d+ s ago/),
      fix: expect.stringMatching(/fresh token/),
    });
    expect(JSON.stringify(flow)).not.toContain(expired);
  });

  it('is also an async iterable on the running emulator, ended by close()', async () => {
    const other = await startEmulator({
      sites: [TOKEN_SITE],
      keys: { [CID]: { kid: KID, key: KEY } },
    });
    const collected: string[] = [];
    const loop = (async () => {
      for await (const event of other.events) collected.push(event.type);
    })();
    await postLicense(other.url, undefined);
    await other.close();
    await loop;
    expect(collected).toEqual(['license-request', 'license-denied']);
  });
});

describe('close()', () => {
  it('ends open event streams and resolves', async () => {
    const other = await startEmulator({ sites: [TOKEN_SITE] });
    const response = await fetch(`${other.url}/events`);
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    await reader.read(); // the stream's opening comment
    await other.close();
    let done = false;
    while (!done) done = (await reader.read()).done;
    expect(done).toBe(true);
  });
});

describe('the running emulator', () => {
  it("gives the license URL at the service's path", () => {
    expect(emulator.licenseUrl).toBe(`${emulator.url}/ri/licenseManager.do`);
  });
});

describe('GET /health', () => {
  it('reports the sites and cids without any key', async () => {
    const response = await fetch(`${emulator.url}/health`);
    const body = (await response.json()) as Record<string, unknown>;
    expect(response.status).toBe(200);
    expect(body).toMatchObject({
      status: 'ok',
      sites: [{ siteId: TOKEN_SITE.siteId, mode: 'token' }],
      cids: [CID],
      dialect: 'service',
      licensePath: '/ri/licenseManager.do',
    });
    expect(JSON.stringify(body)).not.toContain(TOKEN_SITE.siteKey);
  });
});

describe('CORS', () => {
  it('is closed by default: a browser origin gets ORIGIN_NOT_ALLOWED, saying what to configure', async () => {
    const preflight = await fetch(`${emulator.url}/ri/licenseManager.do`, {
      method: 'OPTIONS',
      headers: { origin: 'http://localhost:5173', 'access-control-request-method': 'POST' },
    });
    expect(preflight.headers.get('access-control-allow-origin')).toBeNull();
    const res = await postLicense(emulator.url, issuer.issue({ cid: CID }), undefined, {
      origin: 'http://localhost:5173',
    });
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ error_code: 'ORIGIN_NOT_ALLOWED' });
    expect((res.body as { message: string }).message).toContain('allowedOrigins');
  });

  it('answers a preflight for the custom data and stream ID headers from any origin with "*"', async () => {
    const response = await fetch(`${custom.url}/ri/licenseManager.do`, {
      method: 'OPTIONS',
      headers: {
        origin: 'http://localhost:5173',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'x-license-token, content-type',
      },
    });
    expect(response.status).toBe(204);
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    expect(response.headers.get('access-control-allow-headers')).toBe(
      'content-type, x-license-token, x-drm-stream-id',
    );
    expect(response.headers.get('access-control-allow-methods')).toContain('POST');
  });

  it('exposes x-drm-license-policy, x-drm-request-id and x-drm-error-code to scripts', async () => {
    const res = await postLicense(custom.url, undefined, undefined, {
      origin: 'http://a.test',
      'x-license-token': issuer.issue({ cid: CID }),
    });
    expect(res.status).toBe(200);
    const exposed = res.headers.get('access-control-expose-headers')?.split(/,\s*/);
    expect(exposed).toEqual(['x-drm-license-policy', 'x-drm-request-id', 'x-drm-error-code']);
  });

  it('uses the configured header name, case-insensitively, in requests and preflights', async () => {
    const preflight = await fetch(`${custom.url}/ri/licenseManager.do`, {
      method: 'OPTIONS',
      headers: { origin: 'http://a.test' },
    });
    expect(preflight.headers.get('access-control-allow-headers')).toContain('x-license-token');
    const response = await fetch(`${custom.url}/ri/licenseManager.do`, {
      method: 'POST',
      headers: { 'X-License-Token': issuer.issue({ cid: CID }) },
      body: JSON.stringify({ kids: [Buffer.from(KID, 'hex').toString('base64url')] }),
    });
    expect(((await response.json()) as { keys?: unknown[] }).keys).toHaveLength(1);
    const missing = refusalOf(await postLicense(custom.url, issuer.issue({ cid: CID })));
    expect(missing).toMatchObject({ errorCode: '7010', field: 'x-license-token' });
    const query = await postLicense(
      custom.url,
      undefined,
      undefined,
      {},
      `/ri/licenseManager.do?X-License-Token=${encodeURIComponent(issuer.issue({ cid: CID }))}`,
    );
    expect(query.body['keys']).toHaveLength(1);
  });
});
