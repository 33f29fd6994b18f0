import { describe, expect, test } from 'vitest';
import type { DemoApi } from '../src/shared/contract.ts';
import { createHttpApi } from '../src/main/stack/http-api.ts';
import { playRequest } from './support/play-request.ts';

const ORIGIN = 'http://127.0.0.1:4321';
/** The arguments each call got, after the API parsed them. */
const calls: { call: string; args: unknown[] }[] = [];
const api = new Proxy({} as DemoApi, {
  get:
    (_, call) =>
    async (...args: unknown[]) => {
      calls.push({ call: String(call), args });
      return { ok: true, value: 'called' };
    },
});
const handle = createHttpApi(api, () => ORIGIN);
const headers = { origin: ORIGIN, 'content-type': 'application/json' };

describe('web-mode API body limit', () => {
  test('an endless body gets 413 after 16 KiB, and the rest is never read', async () => {
    let pulled = 0;
    let cancelled = false;
    const endless = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled++;
        controller.enqueue(new Uint8Array(1024).fill(0x20));
      },
      cancel() {
        cancelled = true;
      },
    });
    const request = new Request(`${ORIGIN}/api/get-setup`, {
      method: 'POST',
      headers,
      body: endless,
      duplex: 'half',
    } as RequestInit);
    const response = await handle(request);
    expect(response?.status).toBe(413);
    expect(await response?.json()).toMatchObject({
      ok: false,
      error: { code: 'PAYLOAD_TOO_LARGE' },
    });
    expect(cancelled).toBe(true);
    expect(pulled).toBeLessThan(40);
  });

  test('a declared length over 16 KiB is refused before reading', async () => {
    const request = new Request(`${ORIGIN}/api/get-setup`, {
      method: 'POST',
      headers: { ...headers, 'content-length': String(16 * 1024 + 1) },
      body: '[]',
    });
    expect((await handle(request))?.status).toBe(413);
  });

  test('a body of exactly 16 KiB is read and passed on', async () => {
    const body = `[${' '.repeat(16 * 1024 - 2)}]`;
    const request = new Request(`${ORIGIN}/api/get-setup`, { method: 'POST', headers, body });
    expect((await handle(request))?.status).toBe(200);
  });
});

describe('web-mode API: the four modes', () => {
  const prepare = (body: unknown) =>
    handle(
      new Request(`${ORIGIN}/api/prepare-play`, {
        method: 'POST',
        headers,
        body: JSON.stringify(body),
      }),
    );

  test('a license proxy play is parsed and passed on as the page sent it', async () => {
    const request = playRequest({ mode: 'proxy', player: 'dash' });
    calls.length = 0;
    expect((await prepare([request]))?.status).toBe(200);
    expect(calls).toEqual([{ call: 'preparePlay', args: [request] }]);
  });

  test('a mode outside the four is refused naming them, and nothing is called', async () => {
    calls.length = 0;
    const response = await prepare([playRequest({ mode: 'license-proxy' as never })]);
    expect(response?.status).toBe(400);
    expect(await response?.json()).toMatchObject({
      ok: false,
      error: {
        code: 'INVALID_REQUEST',
        message: 'Mode: must be one of token, gateway-json, gateway-xml, proxy.',
      },
    });
    expect(calls).toEqual([]);
  });
});
