import { connect } from 'node:net';
import { expect, test } from 'vitest';
import { listen } from '../src/main/stack/listen.ts';

// The demo's loopback servers (the app's and the content server) answer under their own address
// only, and do not hold a request whose body trickles in.

test('a request whose body trickles in gets 408 and its connection closed at requestTimeoutMs', async () => {
  const server = await listen(async (request) => new Response(await request.text()), 0, 300);
  try {
    const { port } = new URL(server.url);
    const socket = connect(Number(port), '127.0.0.1');
    let text = '';
    socket.on('data', (chunk: Buffer) => (text += chunk.toString()));
    socket.write(`POST / HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\ncontent-length: 900\r\n\r\nab`);
    await new Promise((resolve) => socket.once('close', resolve));
    expect(text).toMatch(/^HTTP\/1\.1 408 /);
  } finally {
    await server.close();
  }
});

test('a request under another Host gets 421, under its own address the answer', async () => {
  const server = await listen(async () => new Response('ok'));
  try {
    const { port } = new URL(server.url);
    const ask = (host: string) =>
      new Promise<string>((resolve) => {
        const socket = connect(Number(port), '127.0.0.1');
        let text = '';
        socket.on('data', (chunk: Buffer) => (text += chunk.toString()));
        socket.once('close', () => resolve(text));
        socket.write(`GET / HTTP/1.1\r\nhost: ${host}\r\nconnection: close\r\n\r\n`);
      });
    expect(await ask(`localhost:${port}`)).toMatch(/^HTTP\/1\.1 421 /);
    expect(await ask(`127.0.0.1:${port}`)).toMatch(/^HTTP\/1\.1 200 /);
  } finally {
    await server.close();
  }
});
