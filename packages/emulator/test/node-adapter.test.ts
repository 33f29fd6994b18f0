import { request } from 'node:http';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTokenIssuer } from '@multidrm/site-kit';
import { startEmulator, type FlowEvent, type RunningEmulator } from '../src/index.ts';
import { CID, clearKeyRequest, KEY, KID, LICENSE_PATH, TOKEN_SITE } from './helpers.ts';

// The emulator's node:http door: methods a web Request refuses, clients that hang up, one write.
let emulator: RunningEmulator;
const internal: unknown[] = [];

beforeAll(async () => {
  emulator = await startEmulator(
    { sites: [TOKEN_SITE], keys: { [CID]: { kid: KID, key: KEY } } },
    { onInternalError: (error) => internal.push(error) },
  );
});
afterAll(() => emulator.close());

function send(
  method: string,
  path: string,
): Promise<{ status: number; allow?: string; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(`${emulator.url}${path}`, { method }, (res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += chunk.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, allow: res.headers.allow, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('the node:http adapter', () => {
  it('answers TRACE and other methods a web Request refuses (TRACE) or rarely sees with 405 or 404, never a 5xx', async () => {
    for (const method of ['TRACE', 'PROPFIND', 'PATCH', 'MKCOL']) {
      const license = await send(method, LICENSE_PATH);
      expect([method, license.status, license.allow]).toEqual([method, 405, 'POST']);
      expect(JSON.parse(license.body)).toMatchObject({ error_code: 'METHOD_NOT_ALLOWED' });
    }
    expect((await send('TRACE', '/nowhere')).status).toBe(404);
    expect(internal).toEqual([]);
  });

  it('reports no internal error when a client hangs up in the middle of its body', async () => {
    const token = createTokenIssuer(TOKEN_SITE).issue({ cid: CID });
    const seen: FlowEvent[] = [];
    const off = emulator.events.on((event) => seen.push(event));
    const { port } = new URL(emulator.url);
    const socket = connect(Number(port), '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    socket.write(
      `POST ${LICENSE_PATH} HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\nx-drm-custom-data: ${token}\r\ncontent-length: 1000\r\n\r\n{"kids":`,
    );
    await new Promise((resolve) => setTimeout(resolve, 50));
    socket.destroy();
    // The refusal of the cut request is recorded; then the emulator serves the next one as usual.
    await expect.poll(() => seen.some((e) => e.type === 'license-denied')).toBe(true);
    off();
    const response = await fetch(emulator.licenseUrl, {
      method: 'POST',
      headers: { 'x-drm-custom-data': token },
      body: clearKeyRequest(KID),
    });
    expect(((await response.json()) as { keys?: unknown[] }).keys).toHaveLength(1);
    expect(internal).toEqual([]);
  });

  it('answers any request target as a path of its own or 404, never a 5xx: "//" and "/\\" are paths', async () => {
    const get = (target: string) => rawGet(target).then((text) => Number(text.split(' ')[1]));
    for (const target of [
      '//',
      '/\\',
      '//health',
      '/\\health',
      '//127.0.0.1/health',
      'http://[',
      'http://x:99999/health',
      '*',
    ])
      expect([target, await get(target)]).toEqual([target, 404]);
    expect(await rawGet('//')).toContain('"error_code":"NOT_FOUND"');
    expect(await get('http://u:p@elsewhere.example/health')).toBe(200);
    expect(internal).toEqual([]);
  });

  it('sends the head and body of an answer in one socket write', async () => {
    const { port } = new URL(emulator.url);
    const socket = connect(Number(port), '127.0.0.1');
    const chunks: string[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk.toString()));
    socket.write(`GET /health HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\nconnection: close\r\n\r\n`);
    await new Promise((resolve) => socket.once('end', resolve));
    expect(chunks).toHaveLength(1);
    expect(chunks[0]).toMatch(/^HTTP\/1\.1 200 OK\r\n[\s\S]*\r\n\r\n\{"status":"ok"/);
  });
});

/** A GET with the request target as given (fetch and node:http normalize or refuse some). */
async function rawGet(target: string): Promise<string> {
  const { port } = new URL(emulator.url);
  const socket = connect(Number(port), '127.0.0.1');
  let text = '';
  socket.on('data', (chunk: Buffer) => (text += chunk.toString()));
  socket.write(`GET ${target} HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\nconnection: close\r\n\r\n`);
  await new Promise((resolve) => socket.once('end', resolve));
  return text;
}

describe('a request that trickles in', () => {
  it('is answered 408 and closed at requestTimeoutMs instead of being held (Node: 300 s)', async () => {
    const slow = await startEmulator({ sites: [TOKEN_SITE] }, { requestTimeoutMs: 300 });
    try {
      const { port } = new URL(slow.url);
      const socket = connect(Number(port), '127.0.0.1');
      let text = '';
      socket.on('data', (chunk: Buffer) => (text += chunk.toString()));
      socket.write(
        `POST ${LICENSE_PATH} HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\ncontent-length: 1000\r\n\r\n{"kids":`,
      );
      await new Promise((resolve) => socket.once('close', resolve));
      expect(text).toMatch(/^HTTP\/1\.1 408 /);
    } finally {
      await slow.close();
    }
  });

  it('refuses a requestTimeoutMs that is not a positive whole number', async () => {
    await expect(startEmulator({ sites: [TOKEN_SITE] }, { requestTimeoutMs: 0 })).rejects.toThrow(
      'requestTimeoutMs: must be a whole number of milliseconds above 0',
    );
  });
});
