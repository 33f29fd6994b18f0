import { readBytesLimited } from './read-body.ts';

/**
 * A request as the emulator's core reads it: the same from a web `Request` (the handler, the msw
 * kit) and from a node:http message (the server), so that the server builds no web objects per
 * license. Load tests of a site run against that server.
 */
export interface Call {
  readonly method: string;
  /** The URL's path, as `URL.pathname` gives it. */
  readonly path: string;
  /** The URL's query without its "?", undecoded, as `URL.search` gives it; "" without one. */
  readonly query: string;
  /** The value of a header (any case), repeated ones joined by ", "; null without it. */
  header(name: string): string | null;
  /** The body, read to at most `limit` bytes; undefined when it is larger (the rest is not read). */
  body(limit: number): Promise<Uint8Array | undefined>;
}

/**
 * An answer as the core makes it: the node server writes it as it is, the web handler wraps it in
 * a `Response`. Every answer with a body names its content-type.
 */
export interface Answer {
  status: number;
  headers: Record<string, string>;
  body: string | Uint8Array<ArrayBuffer> | ReadableStream<Uint8Array> | null;
}

/** A JSON answer, as `Response.json` makes it. */
export function answerJson(
  value: unknown,
  headers: Record<string, string> = {},
  status = 200,
): Answer {
  return {
    status,
    headers: { ...headers, 'content-type': headers['content-type'] ?? 'application/json' },
    body: JSON.stringify(value),
  };
}

/** The call of a web Request: its URL is parsed once. */
export function callOfRequest(request: Request): Call {
  const url = new URL(request.url);
  return {
    method: request.method,
    path: url.pathname,
    query: url.search.slice(1),
    header: (name) => request.headers.get(name),
    body: (limit) => readBytesLimited(request.body, limit),
  };
}

/** The web Response of an answer. */
export function responseOf(answer: Answer): Response {
  return new Response(answer.body, { status: answer.status, headers: answer.headers });
}

/** The answer of a web Response, for the few answers other modules make as Responses. */
export function answerOf(response: Response): Answer {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => (headers[name] = value));
  return { status: response.status, headers, body: response.body };
}

/** Serves calls without web objects; what a node:http server runs for an emulator handler. */
export type AnswerCore = (call: Call) => Promise<Answer>;

const cores = new WeakMap<object, AnswerCore>();

/** Marks `handler` as the web face of `core`, for {@link coreOf}. */
export function withCore<T extends object>(handler: T, core: AnswerCore): T {
  cores.set(handler, core);
  return handler;
}

/** The core behind a handler made with {@link withCore}; undefined for any other handler. */
export function coreOf(handler: object): AnswerCore | undefined {
  return cores.get(handler);
}
