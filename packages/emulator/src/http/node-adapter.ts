import type { IncomingMessage, ServerResponse } from 'node:http';
import { once } from 'node:events';
import { Readable } from 'node:stream';

type WebHandler = (request: Request) => Promise<Response>;

/**
 * Serves a web-standard handler from node:http. It only converts between Node's and the web's types;
 * every decision is the handler's. Unlike site-kit's adapter, which buffers whole answers, it streams
 * the response body, as `GET /events` needs, and cancels it when the client goes away.
 */
export function toNodeListener(
  handler: WebHandler,
  onError: (error: unknown) => void = () => {},
): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    serve(handler, req, res).catch((error: unknown) => {
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
  const aborted = new AbortController();
  res.on('close', () => aborted.abort());
  const method = req.method ?? 'GET';
  const hasBody = method !== 'GET' && method !== 'HEAD';
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    for (const v of Array.isArray(value) ? value : [value]) headers.append(name, v);
  }
  // The URL only feeds routing: a malformed Host header must not make the request unanswerable.
  const base = `http://${req.headers.host ?? 'localhost'}`;
  const url = new URL(req.url ?? '/', URL.canParse(base) ? base : 'http://localhost');
  const request = new Request(url, {
    method,
    headers,
    signal: aborted.signal,
    ...(hasBody ? { body: Readable.toWeb(req) as ReadableStream<Uint8Array>, duplex: 'half' } : {}),
  } as RequestInit);
  const response = await handler(request);

  res.statusCode = response.status;
  for (const [name, value] of response.headers) res.setHeader(name, value);
  // A body the handler stopped reading (too large) is not drained: the connection is closed instead.
  if (!req.complete && hasBody) res.setHeader('connection', 'close');
  if (response.body === null || method === 'HEAD') {
    await response.body?.cancel().catch(() => {});
    res.end();
    return;
  }
  res.flushHeaders();
  const reader = response.body.getReader();
  aborted.signal.addEventListener('abort', () => void reader.cancel().catch(() => {}));
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (!res.write(value)) await once(res, 'drain', { signal: aborted.signal });
    }
  } catch (error) {
    if (!aborted.signal.aborted) throw error;
  }
  res.end();
}
