import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, parseConfig, startEmulator, type RunningEmulator } from '../src/index.ts';
import { TOKEN_SITE } from './helpers.ts';

// DNS rebinding: a page of another site makes the browser call the emulator under the page's own
// name and reads the answers as same-origin (the event stream names users, cids, key IDs and
// policies). The Host header then carries that name: the HTTP server answers only the names it is
// called by, loopback ones with its port unless allowedHosts says otherwise.

let emulator: RunningEmulator;
let port: string;
beforeAll(async () => {
  emulator = await startEmulator({ sites: [TOKEN_SITE] });
  port = new URL(emulator.url).port;
});
afterAll(() => emulator.close());

/** A GET with the Host header as given (fetch sets its own). */
async function get(
  url: string,
  path: string,
  host: string,
): Promise<{ status: number; body: string }> {
  const { port: p } = new URL(url);
  const socket = connect(Number(p), '127.0.0.1');
  let text = '';
  socket.on('data', (chunk: Buffer) => (text += chunk.toString()));
  socket.write(`GET ${path} HTTP/1.1\r\nhost: ${host}\r\nconnection: close\r\n\r\n`);
  await new Promise((resolve) => socket.once('end', resolve));
  const [head = '', ...body] = text.split('\r\n\r\n');
  return { status: Number(head.split(' ')[1]), body: body.join('\r\n\r\n') };
}

describe('the Host header', () => {
  it('a rebound name gets 403 HOST_NOT_ALLOWED for /health and /events, before anything is read', async () => {
    for (const path of ['/health', '/events', '/ri/licenseManager.do']) {
      const answer = await get(emulator.url, path, `rebind.attacker.example:${port}`);
      expect(answer.status).toBe(403);
      expect(JSON.parse(answer.body)).toMatchObject({
        error_code: 'HOST_NOT_ALLOWED',
        message: expect.stringContaining('"rebind.attacker.example:'),
      });
    }
  });

  it('the loopback names with the port are answered; without the port (port 80) or another port they are not', async () => {
    for (const host of [
      `localhost:${port}`,
      `127.0.0.1:${port}`,
      `[::1]:${port}`,
      `LOCALHOST:${port}`,
    ])
      expect([host, (await get(emulator.url, '/health', host)).status]).toEqual([host, 200]);
    for (const host of ['localhost', '127.0.0.1', `localhost:${Number(port) + 1}`])
      expect([host, (await get(emulator.url, '/health', host)).status]).toEqual([host, 403]);
  });

  it('allowedHosts replaces the default, and "*" allows any', async () => {
    const named = await startEmulator({ sites: [TOKEN_SITE], allowedHosts: ['Emulator.test'] });
    const any = await startEmulator({ sites: [TOKEN_SITE], allowedHosts: ['*'] });
    try {
      expect((await get(named.url, '/health', 'emulator.test')).status).toBe(200);
      const local = `127.0.0.1:${new URL(named.url).port}`;
      expect((await get(named.url, '/health', local)).status).toBe(403);
      expect((await get(any.url, '/health', 'rebind.attacker.example')).status).toBe(200);
    } finally {
      await named.close();
      await any.close();
    }
  });

  it('refuses an allowedHosts entry that is not a host', () => {
    expect(() => parseConfig({ sites: [TOKEN_SITE], allowedHosts: ['http://a.test'] })).toThrow(
      ConfigError,
    );
    expect(() => parseConfig({ sites: [TOKEN_SITE], allowedHosts: ['a.test/x'] })).toThrow(
      /allowedHosts\.0: must be "\*" or a host with an optional port/,
    );
  });
});
