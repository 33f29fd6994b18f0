import { readBodyText } from './body.ts';
import { readBytesLimited } from './bytes-body.ts';
import type { Answer, Exchange, ExchangeHandler } from './exchange.ts';

/** A web-standard handler: what site-kit's create*Handler functions return. */
export type WebHandler = (request: Request) => Promise<Response>;

// The exchange handler behind each web handler site-kit makes, for toNodeListener's direct path.
const exchangeHandlers = new WeakMap<WebHandler, ExchangeHandler>();

/** Wraps an exchange handler as a web-standard one, remembering it for toNodeListener. */
export function toWebHandler(handler: ExchangeHandler): WebHandler {
  const web: WebHandler = async (request) => toResponse(await handler(fromRequest(request)));
  exchangeHandlers.set(web, handler);
  return web;
}

export function exchangeHandlerOf(handler: WebHandler): ExchangeHandler | undefined {
  return exchangeHandlers.get(handler);
}

function fromRequest(request: Request): Exchange {
  return {
    method: request.method,
    url: request.url,
    header: (name) => request.headers.get(name),
    readBody: (maxBytes) => readBodyText(request, maxBytes),
    readBytes: (maxBytes) =>
      readBytesLimited(request.body, request.headers.get('content-length'), maxBytes),
    request: () => request,
  };
}

function toResponse(answer: Answer): Response {
  return new Response(answer.text, { status: answer.status, headers: answer.headers });
}
