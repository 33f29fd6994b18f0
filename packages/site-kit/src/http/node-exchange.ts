import type { IncomingMessage } from 'node:http';
import { decodeBody, type BodyResult } from './body.ts';
import { joinBytes, type BytesResult } from './bytes-body.ts';
import type { Exchange } from './exchange.ts';

/** An Exchange over a node:http request, for site-kit's own handlers: no web objects unless asked. */
export function nodeExchange(req: IncomingMessage): Exchange {
  return new NodeExchange(req);
}

// A class rather than an object of closures: one object per request, its methods shared.
class NodeExchange implements Exchange {
  readonly method: string;
  readonly url: string;
  private readonly req: IncomingMessage;
  private web: Request | undefined;

  constructor(req: IncomingMessage) {
    this.req = req;
    this.method = req.method ?? 'GET';
    this.url = req.url ?? '/';
  }

  header(name: string): string | null {
    const value = this.req.headers[name];
    if (value === undefined) return null;
    return Array.isArray(value) ? value.join(', ') : value;
  }

  readBody(maxBytes: number): Promise<BodyResult> {
    return readNodeBody<BodyResult>(this.req, maxBytes, decodeBody, BODY_UNREADABLE);
  }

  readBytes(maxBytes: number): Promise<BytesResult> {
    return readNodeBody<BytesResult>(this.req, maxBytes, bytesOf, BYTES_UNREADABLE);
  }

  peerAddress(): string | undefined {
    return this.req.socket.remoteAddress;
  }

  // Without the body, which the handler has read already (as on the web path, where it is used).
  request(): Request {
    const req = this.req;
    this.web ??= lazyRequest(() => toWebRequest(req, undefined));
    return this.web;
  }
}

const BODY_UNREADABLE: BodyResult = Object.freeze({
  ok: false,
  tooLarge: false,
  reason: 'the request body could not be read',
});
const BYTES_UNREADABLE: BytesResult = Object.freeze({ ok: false, tooLarge: false });
const bytesOf = (chunks: Uint8Array[], streamed: boolean): BytesResult => ({
  ok: true,
  bytes: streamed ? ownBytes(chunks) : joinBytes(chunks),
});

/**
 * The streamed body as one array of its own. node:http copies each body chunk it parses into a
 * buffer of its own, so a body in one chunk (the usual license request) is that chunk, a Buffer,
 * which node:http writes upstream as it is: copied into a plain Uint8Array, it was wrapped in a
 * Buffer again on the way out, and the two allocations cost more than the copy. A chunk that is a
 * view on more memory is copied, as are several chunks and a body parser's body.
 */
function ownBytes(chunks: Uint8Array[]): Uint8Array<ArrayBuffer> {
  const only = chunks.length === 1 ? (chunks[0] as Uint8Array) : undefined;
  if (only !== undefined && only.byteOffset === 0 && only.buffer.byteLength === only.byteLength) {
    return only as Uint8Array<ArrayBuffer>;
  }
  return joinBytes(chunks);
}

/**
 * A Request that is built on first use: an `authorize` that never looks at its request (or a
 * refusal before it) does not pay for one, and a web Request costs more to build than the rest of
 * a token answer's bookkeeping. Everything a handler reads (headers, url, method, clone(), ...)
 * comes from the real Request, methods bound to it; `instanceof Request` holds. As with
 * @hono/node-server's lightweight request, Request's own constructor and fetch() read private state
 * and refuse it: forward `request.clone()`, which is a real Request.
 */
function lazyRequest(build: () => Request): Request {
  const target = Object.create(Request.prototype) as LazyTarget;
  target[BUILD] = build;
  return new Proxy(target, LAZY) as unknown as Request;
}

// The Request behind a lazy one, in a slot of the proxy's target: one handler serves them all, so
// a lazy Request costs an object and a proxy, not a set of closures per request.
const BUILD = Symbol('build');
const REAL = Symbol('real');
interface LazyTarget {
  [BUILD]: () => Request;
  [REAL]?: Request;
}
const realOf = (target: LazyTarget): Request => (target[REAL] ??= target[BUILD]());
const LAZY: ProxyHandler<LazyTarget> = {
  get(target, name) {
    const request = realOf(target);
    const value: unknown = Reflect.get(request, name, request);
    return typeof value === 'function' ? value.bind(request) : value;
  },
  has: (target, name) => Reflect.has(realOf(target), name),
};

/**
 * Reads the body up to `maxBytes` and hands the chunks to `done` (text or bytes). Past the limit it
 * stops listening and leaves the rest unread; the listener then closes the connection rather than
 * drain an upload of any size.
 */
function readNodeBody<R>(
  req: IncomingMessage,
  maxBytes: number,
  done: (chunks: Uint8Array[], streamed: boolean) => R,
  failed: R,
): Promise<R | { ok: false; tooLarge: true }> {
  const declared = Number(req.headers['content-length'] ?? NaN);
  if (declared > maxBytes) return Promise.resolve({ ok: false, tooLarge: true });
  const parsed = (req as IncomingMessage & { body?: unknown }).body;
  if (typeof parsed === 'string') return Promise.resolve(done([Buffer.from(parsed)], false));
  if (parsed instanceof Uint8Array) return Promise.resolve(done([parsed], false));
  // A body parser that ran before read the stream into something else: the body is gone.
  if (req.readableEnded) return Promise.resolve(done([], false));
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.byteLength;
      if (size > maxBytes) {
        stop();
        req.pause();
        resolve({ ok: false, tooLarge: true });
        return;
      }
      chunks.push(chunk);
    };
    // At the end the listeners are left in place: the message is finished and goes with them, and
    // removing three listeners cost a request as much as decoding its body. The error listener
    // then only catches a late error, which changes nothing.
    const onEnd = () => resolve(done(chunks, true));
    const onError = () => {
      stop();
      resolve(failed);
    };
    const stop = () => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
  });
}

/** The web Request of a node:http message; `body` when it was read already. */
export function toWebRequest(
  req: IncomingMessage,
  body: Uint8Array | ReadableStream<Uint8Array> | undefined,
): Request {
  // Pairs, not a Headers object: Request builds its own Headers from them, once.
  const headers: [string, string][] = [];
  const raw = req.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2)
    headers.push([raw[i] as string, raw[i + 1] as string]);
  // A target without a URL never gets this far (the listener refuses it): routing sees the root.
  const url = requestUrl(req.headers.host ?? 'localhost', req.url ?? '/') ?? 'http://localhost/';
  const method = req.method ?? 'GET';
  if (method === 'GET' || method === 'HEAD' || body === undefined) {
    return new Request(url, { method, headers });
  }
  // A Buffer is a view on an ArrayBuffer, never a SharedArrayBuffer.
  const init = { method, headers, body: body as Uint8Array<ArrayBuffer>, duplex: 'half' };
  return new Request(url, init as RequestInit);
}

// A host name or address with an optional port: nothing that could end the authority early.
const PLAIN_HOST = /^(?:[A-Za-z0-9._-]+|\[[0-9A-Fa-f:.]+\])(?::[0-9]{1,5})?$/;
let lastHost = '';
let lastBase = 'http://localhost';

/**
 * The request's URL, for its web Request; undefined for a target no URL names (`http://[`), which
 * {@link toNodeListener} refuses before any handler sees it. The URL only feeds routing; a malformed
 * Host must not make the request unanswerable, so a Host that does not parse is localhost, and only
 * the Host's origin is kept (a Request refuses a URL with credentials). A target that starts with
 * `/` is a path on the Host (RFC 9112's origin-form), `//x` and `/\x` included, never another
 * authority; it is given to Request as one string, which it parses once (a URL cost a third of a
 * Request). Any other target (absolute-form, `*`) is resolved against the Host, credentials dropped.
 */
export function requestUrl(host: string, target: string): string | URL | undefined {
  if (host !== lastHost) {
    const base = `http://${host}`;
    lastBase = !URL.canParse(base)
      ? 'http://localhost'
      : PLAIN_HOST.test(host)
        ? base
        : new URL(base).origin;
    lastHost = host;
  }
  if (target.charCodeAt(0) === 0x2f /* / */) return lastBase + target;
  if (!URL.canParse(target, lastBase)) return undefined;
  const url = new URL(target, lastBase);
  url.username = '';
  url.password = '';
  return url;
}
