import type { IncomingMessage, ServerResponse } from 'node:http';
import { EmulatorError } from '../errors.ts';
import type { Call } from './exchange.ts';

/**
 * The web Request of a node:http message, as little of it as the handler reads: method, url,
 * headers.get/has, body and signal are served from the node message directly; anything else
 * (clone(), text(), headers iteration, ...) builds the real Request or Headers once and reads that.
 * A real Request costs more to build than the rest of a license answer's HTTP work, and refuses
 * methods such as TRACE outright, which must reach the handler to be answered 405 (the same idea as
 * @hono/node-server's lightweight request). `instanceof Request` holds.
 */
export function nodeRequest(req: IncomingMessage, res: ServerResponse): Request {
  const method = req.method ?? 'GET';
  const hasBody = method !== 'GET' && method !== 'HEAD';
  let url: string | undefined;
  let body: ReadableStream<Uint8Array<ArrayBuffer>> | null | undefined;
  let signal: AbortSignal | undefined;
  const href = () => (url ??= urlOf(req));
  const headers = lazy<Headers>(
    Headers.prototype,
    { get: headerOf(req), has: (n: string) => headerOf(req)(n) !== null },
    () => new Headers(pairs(req)),
  );
  const fast: Partial<Request> = {
    method,
    get url() {
      return href();
    },
    headers,
    get body() {
      return (body ??= hasBody ? bodyStream(req) : null);
    },
    get bodyUsed() {
      return false;
    },
    get signal() {
      return (signal ??= closeSignal(res));
    },
  };
  return lazy<Request>(Request.prototype, fast, () => {
    // Only for members the fast path does not serve: the body is the node stream's, unread.
    const init = { method, headers: pairs(req), signal: fast.signal } as RequestInit;
    if (hasBody) Object.assign(init, { body: fast.body, duplex: 'half' });
    return new Request(href(), init);
  });
}

/**
 * The core's {@link Call} of a node:http message: no web object, and no URL parse for a plain
 * request target (see splitTarget). The body is read straight from the message.
 */
export function nodeCall(req: IncomingMessage): Call {
  const method = req.method ?? 'GET';
  const hasBody = method !== 'GET' && method !== 'HEAD';
  const { path, query } = splitTarget(req);
  return {
    method,
    path,
    query,
    header: headerOf(req),
    body: (limit) => (hasBody ? readBody(req, limit) : Promise.resolve(new Uint8Array(0))),
  };
}

// A target made of these characters only has the same path and query after a URL parse (no dot
// segment, no percent escape, no character the parser would escape, no "//" authority); any other
// target takes the URL parser's reading.
const PLAIN_PATH = /^\/(?!\/)[\w.~/-]*$/;
const PLAIN_QUERY = /^[\w.~!$&()*+,;=:@/?%-]*$/;

function splitTarget(req: IncomingMessage): { path: string; query: string } {
  const target = req.url ?? '/';
  const at = target.indexOf('?');
  const path = at < 0 ? target : target.slice(0, at);
  const query = at < 0 ? '' : target.slice(at + 1);
  if (PLAIN_PATH.test(path) && !path.includes('/.') && PLAIN_QUERY.test(query)) {
    return { path, query };
  }
  const url = new URL(urlOf(req));
  return { path: url.pathname, query: url.search.slice(1) };
}

/**
 * The body's bytes up to `limit`; undefined as soon as it is larger, and the message is paused so
 * that the upload stops (the server then closes the connection). A client that hangs up mid-body
 * gets the same refusal as through {@link bodyStream}.
 */
function readBody(req: IncomingMessage, limit: number): Promise<Uint8Array | undefined> {
  if (req.readableEnded) return Promise.resolve(new Uint8Array(0));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const stop = () => {
      req.off('data', onData);
      req.off('end', onEnd);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.byteLength;
      if (size > limit) {
        stop();
        req.pause();
        resolve(undefined);
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      stop();
      resolve(joined(chunks, size));
    };
    req.on('data', onData);
    req.once('end', onEnd);
    // Stays on after the body is read: an error without a listener would be thrown.
    req.once('error', () => {
      stop();
      reject(
        new EmulatorError(
          'BAD_LICENSE_REQUEST',
          'The client closed the connection before it had sent the whole request body.',
        ),
      );
    });
  });
}

/** The chunks as one Uint8Array (not a Buffer, whose slice() is a view): no copy for one chunk. */
function joined(chunks: readonly Buffer[], size: number): Uint8Array {
  if (chunks.length === 1) {
    const only = chunks[0] as Buffer;
    return new Uint8Array(only.buffer, only.byteOffset, only.byteLength);
  }
  const out = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.byteLength;
  }
  return out;
}

/** An object of `proto`'s class whose `fast` members answer directly, every other one from `build()`. */
function lazy<T extends object>(proto: object, fast: Partial<T>, build: () => T): T {
  let real: T | undefined;
  return new Proxy(Object.create(proto) as T, {
    get(_, name) {
      if (name in fast) return (fast as Record<PropertyKey, unknown>)[name];
      real ??= build();
      const value: unknown = Reflect.get(real, name, real);
      return typeof value === 'function' ? value.bind(real) : value;
    },
    has: (_, name) => name in fast || Reflect.has((real ??= build()), name),
  });
}

function headerOf(req: IncomingMessage): (name: string) => string | null {
  return (name) => {
    const value = req.headers[name.toLowerCase()];
    if (value === undefined) return null;
    return Array.isArray(value) ? value.join(', ') : value;
  };
}

function pairs(req: IncomingMessage): [string, string][] {
  const out: [string, string][] = [];
  const raw = req.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) out.push([raw[i] as string, raw[i + 1] as string]);
  return out;
}

// The URL only feeds routing: a malformed Host header must not make the request unanswerable. A
// target that starts with "/" is a path on the Host (RFC 9112's origin-form: "//x" and "/\\x" too,
// never another authority); a target that names no URL (`http://[`) becomes a path no route serves.
function urlOf(req: IncomingMessage): string {
  const target = req.url ?? '/';
  const base = `http://${req.headers.host ?? 'localhost'}`;
  const origin = URL.canParse(base) ? new URL(base).origin : 'http://localhost';
  if (target.startsWith('/')) return new URL(origin + target).href;
  return URL.canParse(target, origin)
    ? new URL(target, origin).href
    : `${origin}/${encodeURIComponent(target)}`;
}

/** Aborts when the client goes away before the answer is sent; a normal close aborts nothing. */
function closeSignal(res: ServerResponse): AbortSignal {
  const controller = new AbortController();
  const gone = () => {
    if (!res.writableFinished) controller.abort();
  };
  if (res.closed) gone();
  else res.once('close', gone);
  return controller.signal;
}

/**
 * The body as a web stream, paused until the handler reads, so that a handler stopping at its size
 * limit stops the upload too. A client that hangs up mid-body is a refusal of a request nobody waits
 * for, not an emulator failure: the stream errors with BAD_LICENSE_REQUEST, never Node's "aborted".
 */
function bodyStream(req: IncomingMessage): ReadableStream<Uint8Array<ArrayBuffer>> {
  let open = true;
  return new ReadableStream<Uint8Array<ArrayBuffer>>(
    {
      start(controller) {
        if (req.readableEnded) {
          open = false;
          controller.close();
          return;
        }
        req.on('data', (chunk: Buffer) => {
          if (!open) return;
          // A Buffer is a view on an ArrayBuffer, never a SharedArrayBuffer.
          const bytes = chunk.buffer as ArrayBuffer;
          controller.enqueue(new Uint8Array(bytes, chunk.byteOffset, chunk.byteLength));
          if ((controller.desiredSize ?? 0) <= 0) req.pause();
        });
        req.once('end', () => {
          if (open) controller.close();
          open = false;
        });
        req.once('error', () => {
          if (open) {
            controller.error(
              new EmulatorError(
                'BAD_LICENSE_REQUEST',
                'The client closed the connection before it had sent the whole request body.',
              ),
            );
          }
          open = false;
        });
        req.pause();
      },
      pull() {
        req.resume();
      },
      cancel() {
        open = false;
        req.pause();
      },
    },
    { highWaterMark: 4 },
  );
}
