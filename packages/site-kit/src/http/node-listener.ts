import type { IncomingMessage, ServerResponse } from 'node:http';
import { nodeExchange, requestUrl, toWebRequest } from './node-exchange.ts';
import { exchangeHandlerOf, type WebHandler } from './web.ts';
import { createWriteBatch } from './write-batch.ts';

/**
 * A node:http (or Express) request listener, as returned by {@link toNodeListener}; it never
 * rejects.
 */
export type NodeListener = (req: IncomingMessage, res: ServerResponse) => Promise<void>;
export type { WebHandler };

/**
 * Adapts a web-standard handler to node:http (and to Express, whose req/res are node's). It only
 * converts. Handlers made by site-kit are served directly from the node message, without building
 * a web Request and Response per call; any other handler gets real ones, its body streamed so that
 * its own size limit applies while reading. Mount it before any body parser; a body a parser already
 * read as text or bytes is used.
 */
export function toNodeListener(handler: WebHandler): NodeListener {
  const direct = exchangeHandlerOf(handler);
  const batch = createWriteBatch();
  return async (req, res) => {
    try {
      if (!namesUrl(req)) {
        writeHead(req, res, 400, { 'content-type': 'text/plain; charset=utf-8' }, BAD_TARGET);
        res.end(BAD_TARGET);
        return;
      }
      if (direct) {
        const answer = await direct(nodeExchange(req));
        await batch(() => {
          writeHead(req, res, answer.status, answer.headers, answer.text);
          res.end(answer.text ?? undefined);
        });
        return;
      }
      await sendResponse(await callWeb(handler, req), req, res);
    } catch {
      if (res.headersSent) res.destroy();
      else {
        writeHead(
          req,
          res,
          500,
          { 'content-type': 'text/plain; charset=utf-8' },
          'Internal error.',
        );
        res.end('Internal error.');
      }
    }
  };
}

const BAD_TARGET = 'Bad request: the request target is neither a path nor a URL.';

// What clients send (a path) is checked by one character; the rest must name a URL.
function namesUrl(req: IncomingMessage): boolean {
  const target = req.url ?? '/';
  return (
    target.charCodeAt(0) === 0x2f /* / */ ||
    requestUrl(req.headers.host ?? 'localhost', target) !== undefined
  );
}

async function callWeb(handler: WebHandler, req: IncomingMessage): Promise<Response> {
  const parsed = (req as IncomingMessage & { body?: unknown }).body;
  const body =
    typeof parsed === 'string'
      ? Buffer.from(parsed)
      : parsed instanceof Uint8Array
        ? parsed
        : req.readableEnded
          ? undefined
          : bodyStream(req);
  try {
    return await handler(toWebRequest(req, body));
  } catch {
    // Handlers answer their own errors; this guards the process against one that does not.
    return new Response('Internal error.', { status: 500 });
  }
}

// Paused until the handler reads, so a handler that stops at its size limit stops the upload too.
// A cancelled body is left unread; the connection is then closed instead of drained.
function bodyStream(req: IncomingMessage): ReadableStream<Uint8Array> {
  let open = true;
  return new ReadableStream<Uint8Array>(
    {
      start(controller) {
        req.on('data', (chunk: Buffer) => {
          if (!open) return;
          controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
          if ((controller.desiredSize ?? 0) <= 0) req.pause();
        });
        req.once('end', () => {
          if (open) controller.close();
          open = false;
        });
        req.once('error', (error) => {
          if (open) controller.error(error);
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

async function sendResponse(response: Response, req: IncomingMessage, res: ServerResponse) {
  const headers: Record<string, string | string[]> = {};
  response.headers.forEach((value, name) => {
    headers[name] = value;
  });
  const cookies = response.headers.getSetCookie();
  if (cookies.length > 0) headers['set-cookie'] = cookies;
  const body = response.body === null ? null : Buffer.from(await response.arrayBuffer());
  writeHead(req, res, response.status, headers, body);
  res.end(body ?? undefined);
}

// A string body goes out in one write with the head. A request body left unread (a refusal before
// reading, or past a size limit) closes the connection instead of being drained.
function writeHead(
  req: IncomingMessage,
  res: ServerResponse,
  status: number,
  headers: Record<string, string | string[]>,
  body: string | Uint8Array | null,
): void {
  const out = { ...headers };
  if (body !== null) out['content-length'] = String(Buffer.byteLength(body));
  if (!req.complete) out['connection'] = 'close';
  res.writeHead(status, out);
}
