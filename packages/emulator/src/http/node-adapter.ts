import type { IncomingMessage, ServerResponse } from 'node:http';
import { once } from 'node:events';
import { nodeRequest } from './node-request.ts';

type WebHandler = (request: Request) => Promise<Response>;

/**
 * Serves a web-standard handler from node:http. It only converts between Node's and the web's types;
 * every decision is the handler's. A whole answer goes out in one socket write, head and body
 * together; an event stream (text/event-stream) is streamed and cancelled when the client goes away.
 * Load tests of a site run against this server, so it builds no web objects it can do without.
 */
export function toNodeListener(
  handler: WebHandler,
  onError: (error: unknown) => void = () => {},
): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    serve(handler, req, res).catch((error: unknown) => {
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

async function serve(
  handler: WebHandler,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const method = req.method ?? 'GET';
  const response = await handler(nodeRequest(req, res));
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    headers[name] = value;
  });
  // A body the handler stopped reading (too large) is not drained: the connection is closed instead.
  if (!req.complete && method !== 'GET' && method !== 'HEAD') headers['connection'] = 'close';
  if (response.body === null || method === 'HEAD') {
    await response.body?.cancel().catch(() => {});
    res.writeHead(response.status, headers);
    res.end();
    return;
  }
  if (!(headers['content-type'] ?? '').startsWith('text/event-stream')) {
    const body = Buffer.from(await response.arrayBuffer());
    headers['content-length'] = String(body.byteLength);
    res.writeHead(response.status, headers);
    res.end(body);
    return;
  }
  await stream(response.body, res, response.status, headers);
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
