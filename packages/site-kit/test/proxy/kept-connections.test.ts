import { execFile } from 'node:child_process';
import { createServer as createHttpServer, type Server } from 'node:http';
import net, {
  createServer as createTcpServer,
  type AddressInfo,
  type NetConnectOpts,
  type Socket,
} from 'node:net';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { once } from 'node:events';
import { nodeTransport } from '../../src/proxy/node-transport.ts';
import { createSocketPool } from '../../src/proxy/socket-pool.ts';
import { ProxyFailure } from '../../src/proxy/errors.ts';
import type { UpstreamAnswer } from '../../src/proxy/upstream.ts';

// The node transport keeps its connections to the service itself (socket-pool.ts) rather than
// through node:http's Agent: what the Agent did for a kept connection, each checked here on real
// servers.

const run = promisify(execFile);
const fixture = (name: string) => fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url));
const LIMITS = { deadlineMs: 5000, maxAnswerBytes: 1024 };
const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

const closing: (() => void)[] = [];
afterEach(() => {
  vi.restoreAllMocks();
  for (const close of closing.splice(0)) close();
});

/** A node:http service answering "license", counting the connections it accepted. */
async function service(keepAliveTimeout = 30_000) {
  const server: Server = createHttpServer((request, response) => {
    request.resume();
    request.on('end', () => response.end('license'));
  });
  server.keepAliveTimeout = keepAliveTimeout;
  let connections = 0;
  server.on('connection', () => connections++);
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  closing.push(() => {
    server.closeAllConnections();
    server.close();
  });
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/ri/licenseManager.do`, connections: () => connections };
}

/**
 * A service written on raw TCP, for what node:http's server never does: `after` runs on the
 * connection once the answer (no Keep-Alive header) is written, while the caller holds it idle.
 */
async function rawService(
  after: (socket: Socket, nth: number) => void,
  answer = 'HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\ncontent-length: 7\r\n\r\nlicense',
) {
  let connections = 0;
  const server = createTcpServer((socket) => {
    const nth = ++connections;
    socket.on('error', () => undefined);
    socket.on('data', (bytes) => {
      if (!bytes.includes('\r\n\r\n')) return;
      socket.write(answer);
      after(socket, nth);
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const sockets = new Set<Socket>();
  server.on('connection', (socket) => sockets.add(socket));
  closing.push(() => {
    for (const socket of sockets) socket.destroy();
    server.close();
  });
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/ri/licenseManager.do`, connections: () => connections };
}

/** The connections the transport opens from now on (net.connect, read by the pool at each call). */
function watchConnections(): Socket[] {
  const opened: Socket[] = [];
  const connect = net.connect.bind(net) as (options: NetConnectOpts) => Socket;
  vi.spyOn(net, 'connect').mockImplementation(((options: NetConnectOpts) => {
    const socket = connect(options);
    opened.push(socket);
    return socket;
  }) as typeof net.connect);
  return opened;
}

const text = (answer: UpstreamAnswer) => Buffer.from(answer.bytes).toString();

function caller() {
  const transport = nodeTransport();
  return (url: string) =>
    transport({ url, method: 'POST', headers: {}, body: new Uint8Array([1, 2]) }, LIMITS).then(
      text,
    );
}

describe('the connections the node transport keeps', () => {
  it('carries calls in a row on one connection, and calls at once each on its own, kept for the next ones', async () => {
    const { url, connections } = await service();
    const call = caller();
    for (let i = 0; i < 5; i++) expect(await call(url)).toBe('license');
    expect(connections()).toBe(1);
    const together = await Promise.all(Array.from({ length: 8 }, () => call(url)));
    expect(together).toEqual(Array(8).fill('license'));
    const afterTogether = connections();
    expect(afterTogether).toBeLessThanOrEqual(8);
    for (let i = 0; i < 8; i++) expect(await call(url)).toBe('license');
    expect(connections()).toBe(afterTogether);
  });

  it("does not use a connection idle for longer than the server's Keep-Alive timeout less a second", async () => {
    // node:http's server announces "Keep-Alive: timeout=2": a connection idle for 1.1 s may be
    // closed by the server at any moment now, so the next call opens a new one.
    const { url, connections } = await service(2000);
    const call = caller();
    expect(await call(url)).toBe('license');
    expect(await call(url)).toBe('license');
    expect(connections()).toBe(1);
    await sleep(1100);
    expect(await call(url)).toBe('license');
    expect(connections()).toBe(2);
  });

  // What the server does to a connection it answered on, while the caller holds it idle. Before
  // the next call the test waits until the caller's side of that connection is closed: a call made
  // earlier would race the server's close (on any client), which is not what is tested here.
  it.each([
    ['closes it', (socket: Socket) => setTimeout(() => socket.end(), 20)],
    // Without a listener for an idle connection's error, the reset would crash the process.
    ['resets it', (socket: Socket) => setTimeout(() => socket.resetAndDestroy(), 20)],
    // A second answer nobody asked for: read by the next call, it would be that call's answer
    // (another user's license, on a proxy).
    [
      'sends anything on it',
      (socket: Socket) =>
        setTimeout(() => socket.write('HTTP/1.1 200 OK\r\ncontent-length: 5\r\n\r\nstale'), 20),
    ],
  ])(
    'when the server %s, the next call gets its own answer on a new connection',
    async (_what, after) => {
      const opened = watchConnections();
      const { url, connections } = await rawService((socket, nth) => {
        if (nth === 1) after(socket);
      });
      const call = caller();
      expect(await call(url)).toBe('license');
      const first = opened[0] as Socket;
      // Not events.once, which rejects on the reset's error event.
      if (!first.destroyed) await new Promise((closed) => first.once('close', closed));
      expect(await call(url)).toBe('license');
      expect(connections()).toBe(2);
    },
  );

  it('leaves the process free to exit with a connection idle', async () => {
    // The service keeps connections for 30 s: a pool holding the process open would run until then.
    const { url } = await service(30_000);
    const started = Date.now();
    const { stdout, stderr } = await run(process.execPath, [fixture('one-call.ts'), url], {
      timeout: 15_000,
    });
    expect(stderr).toBe('');
    expect(stdout.trim()).toBe('200');
    expect(Date.now() - started).toBeLessThan(15_000);
  });

  it('verifies TLS as node:tls does: the certificate trusted and for the name called, a session resumed on a new connection', async () => {
    const env = { ...process.env, NODE_EXTRA_CA_CERTS: fixture('localhost-cert.pem') };
    const { stdout, stderr } = await run(process.execPath, [fixture('tls-upstream.ts')], {
      env,
      timeout: 20_000,
    });
    expect(stderr).toBe('');
    expect(JSON.parse(stdout)).toEqual({
      statuses: Array(5).fill('200 license'),
      connections: 2,
      resumed: 1,
      // The certificate names localhost, not 127.0.0.1.
      byAddress: 'UPSTREAM_UNREACHABLE',
    });
    // Not trusted at all: every call refused, none relayed.
    const untrusted = await run(process.execPath, [fixture('tls-upstream.ts')], {
      env: { ...process.env, NODE_EXTRA_CA_CERTS: '' },
      timeout: 20_000,
    });
    expect(JSON.parse(untrusted.stdout)).toMatchObject({
      statuses: Array(5).fill('UPSTREAM_UNREACHABLE'),
      connections: 0,
    });
  });

  it('never hands out a connection destroyed a moment ago, before its close is heard', async () => {
    const { url } = await service();
    const pool = createSocketPool({
      secure: false,
      hostname: '127.0.0.1',
      port: Number(new URL(url).port),
    });
    const first = pool.connection();
    await once(first, 'connect');
    // What node:http does once an answer is read whole: the connection goes back to the pool.
    first.emit('free');
    first.destroy();
    const next = pool.connection();
    expect(next).not.toBe(first);
    next.destroy();
  });
});

describe("the service's answer head", () => {
  it('refuses an answer whose declared length is over the limit at once, without waiting for its body', async () => {
    // A head that declares a megabyte, and then nothing: read on, the call would wait for the
    // deadline (UPSTREAM_TIMEOUT) rather than be refused for its size.
    const { url } = await rawService(
      () => undefined,
      'HTTP/1.1 200 OK\r\ncontent-type: application/octet-stream\r\nContent-Length: 1048576\r\n\r\n',
    );
    const transport = nodeTransport();
    const failed = await transport(
      { url, method: 'POST', headers: {}, body: new Uint8Array([1]) },
      { deadlineMs: 2000, maxAnswerBytes: 1024 },
    ).catch((error: unknown) => error);
    expect(failed).toBeInstanceOf(ProxyFailure);
    expect((failed as ProxyFailure).code).toBe('UPSTREAM_ANSWER_TOO_LARGE');
  });
});
