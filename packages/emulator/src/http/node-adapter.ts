import type { IncomingMessage, ServerResponse } from 'node:http';
import { once } from 'node:events';
import { createWriteBatch, type WriteBatch } from '@multidrm/site-kit/node';
import { answerOf, coreOf, type Answer } from './exchange.ts';
import { nodeCall, nodeRequest } from './node-request.ts';

type WebHandler = (request: Request) => Promise<Response>;

/**
 * Serves a web-standard handler from node:http. It only converts between Node's and the web's types;
 * every decision is the handler's. A whole answer goes out in one socket write, head and body
 * together; an event stream (text/event-stream) is streamed and cancelled when the client goes away.
 * Load tests of a site run against this server, so it builds no web objects it can do without: an
 * emulator handler's core is served directly, a node message in, a plain answer out.
 */
export function toNodeListener(
  handler: WebHandler,
  onError: (error: unknown) => void = () => {},
): (req: IncomingMessage, res: ServerResponse) => void {
  const core = coreOf(handler);
  const batch = createWriteBatch();
  const serve =
    core === undefined
      ? async (req: IncomingMessage, res: ServerResponse) =>
          write(answerOf(await handler(nodeRequest(req, res))), req, res, batch)
      : async (req: IncomingMessage, res: ServerResponse) =>
          write(await core(nodeCall(req)), req, res, batch);
  return (req, res) => {
    serve(req, res).catch((error: unknown) => {
      // Writing to a client that has gone away is nobody's failure.
      if (res.destroyed && !res.writableFinished) return;
      onError(error);
      if (!res.headersSent) {
        res.writeHead(500, {
          'content-type': 'application/json',
          'x-drm-error-code': 'INTERNAL_ERROR',
        });
        res.end(
          JSON.stringify({
            error_code: 'INTERNAL_ERROR',
            message: 'The emulator failed unexpectedly.',
          }),
        );
      } else {
        res.destroy();
      }
    });
  };
}

async function write(
  answer: Answer,
  req: IncomingMessage,
  res: ServerResponse,
  batch: WriteBatch,
): Promise<void> {
  const method = req.method ?? 'GET';
  const { status, body } = answer;
  const headers = sortedHeaders(answer.headers);
  // A body the handler stopped reading (too large) is not drained: the connection is closed instead.
  if (!req.complete && method !== 'GET' && method !== 'HEAD') headers['connection'] = 'close';
  if (body === null || method === 'HEAD') {
    if (body instanceof ReadableStream) await body.cancel().catch(() => {});
    res.writeHead(status, headers);
    res.end();
    return;
  }
  // A string goes to res.end as it is: node:http then sends head and body in one write (one
  // syscall), where bytes go out as two buffers (writev), which costs more per answer.
  if (typeof body === 'string' || body instanceof Uint8Array) {
    headers['content-length'] = String(
      typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength,
    );
    await batch(() => {
      res.writeHead(status, headers);
      res.end(body);
    });
    return;
  }
  if (!(headers['content-type'] ?? '').startsWith('text/event-stream')) {
    const bytes = Buffer.from(await new Response(body).arrayBuffer());
    headers['content-length'] = String(bytes.byteLength);
    res.writeHead(status, headers);
    res.end(bytes);
    return;
  }
  await stream(body, res, status, headers);
}

/**
 * The headers in the order a web Headers object lists them (by name), as this server has always sent
 * them. Sorted by insertion, in place: Array.prototype.sort copies into a work array first, and every
 * license answer has a dozen headers to order (a third of what the adapter allocated per license).
 */
function sortedHeaders(from: Record<string, string>): Record<string, string> {
  const names = Object.keys(from);
  for (let i = 1; i < names.length; i++) {
    const name = names[i] as string;
    let j = i - 1;
    for (; j >= 0 && (names[j] as string) > name; j--) names[j + 1] = names[j] as string;
    names[j + 1] = name;
  }
  const headers: Record<string, string> = {};
  for (const name of names) headers[name.toLowerCase()] = from[name] as string;
  return headers;
}

async function stream(
  body: ReadableStream<Uint8Array>,
  res: ServerResponse,
  status: number,
  headers: Record<string, string>,
): Promise<void> {
  res.writeHead(status, headers);
  res.flushHeaders();
  const reader = body.getReader();
  const gone = new AbortController();
  res.once('close', () => {
    gone.abort();
    void reader.cancel().catch(() => {});
  });
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (!res.write(value)) await once(res, 'drain', { signal: gone.signal });
    }
  } catch (error) {
    if (!gone.signal.aborted) throw error;
  }
  res.end();
}
