import type { IncomingMessage, ServerResponse } from 'node:http';
import { EmulatorError } from '../errors.ts';

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

// The URL only feeds routing: a malformed Host header must not make the request unanswerable.
function urlOf(req: IncomingMessage): string {
  const base = `http://${req.headers.host ?? 'localhost'}`;
  return new URL(req.url ?? '/', URL.canParse(base) ? base : 'http://localhost').href;
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
