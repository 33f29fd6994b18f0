import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { toNodeListener, type WebHandler } from '@multidrm/site-kit';

export interface Listening {
  url: string;
  close(): Promise<void>;
}

/**
 * The methods the demo's servers answer. Any other (TRACE, CONNECT, WebDAV's, made-up ones) gets
 * 405 here: a web Request cannot even be built for some of them (TRACE), which would otherwise
 * end as a 500.
 */
const METHODS = new Set(['GET', 'HEAD', 'POST', 'OPTIONS']);

const MISDIRECTED = 'MISDIRECTED_HOST: This server answers only at the address the demo printed.\n';

/**
 * Serves a web-standard handler on 127.0.0.1 (port 0 = ephemeral), under that address only: a
 * DNS-rebinding page reaches 127.0.0.1 under its own host name, and gets nothing (421). A request
 * must arrive within `requestTimeoutMs`, or it gets 408 and its connection is closed.
 */
export async function listen(
  handler: WebHandler,
  port = 0,
  requestTimeoutMs = 30_000,
): Promise<Listening> {
  const web = toNodeListener(handler);
  let own = '';
  // Node holds a request whose body trickles in for 300 s by default.
  const timeouts = {
    requestTimeout: requestTimeoutMs,
    headersTimeout: Math.min(10_000, requestTimeoutMs),
    connectionsCheckingInterval: Math.min(1_000, Math.ceil(requestTimeoutMs / 4)),
  };
  const server: Server = createServer(timeouts, (req, res) => {
    if (req.headers.host !== own) {
      res.writeHead(421, {
        'content-type': 'text/plain; charset=utf-8',
        'content-length': Buffer.byteLength(MISDIRECTED),
        connection: 'close',
      });
      return void res.end(MISDIRECTED);
    }
    if (METHODS.has(req.method ?? '')) return void web(req, res);
    const text = `METHOD_NOT_ALLOWED: the demo answers ${[...METHODS].join(', ')}.\n`;
    res.writeHead(405, {
      allow: [...METHODS].join(', '),
      'content-type': 'text/plain; charset=utf-8',
      'content-length': Buffer.byteLength(text),
      // The body, if any, is left unread: close rather than drain it.
      connection: 'close',
    });
    res.end(text);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port: actual } = server.address() as AddressInfo;
  own = `127.0.0.1:${actual}`;
  let closing: Promise<void> | undefined;
  return {
    url: `http://127.0.0.1:${actual}`,
    close() {
      closing ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closing;
    },
  };
}
