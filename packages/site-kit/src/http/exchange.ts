import type { BodyResult } from './body.ts';
import type { BytesResult } from './bytes-body.ts';

/**
 * What a site-kit handler sees of a request, whatever carries it: a web Request or a node:http
 * message. Handlers are written against this and an `Answer`, so the node adapter can serve them
 * without building web objects on every call.
 */
export interface Exchange {
  readonly method: string;
  /** The request target as received: path and query (a web Request's whole URL). */
  readonly url: string;
  /** A header value (lower-case name), repeated values joined with ", ". */
  header(name: string): string | null;
  /** The body as UTF-8 text, read only up to `maxBytes`. */
  readBody(maxBytes: number): Promise<BodyResult>;
  /** The body as bytes (the license proxy's CDM messages), read only up to `maxBytes`. */
  readBytes(maxBytes: number): Promise<BytesResult>;
  /** The peer's address, where the adapter has a socket (node:http); for per-address limits. */
  peerAddress?(): string | undefined;
  /** The web Request, for a site's `authorize` that reads cookies or a session. */
  request(): Request;
}

/** A handler's answer: a status, a text (or bytes) body, null for none, and headers. */
export interface Answer {
  status: number;
  text: string | Uint8Array<ArrayBuffer> | null;
  headers: Record<string, string>;
}

export type ExchangeHandler = (exchange: Exchange) => Promise<Answer>;

const TEXT_HEADERS = {
  'content-type': 'text/plain; charset=utf-8',
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
};

/** A plain-text answer that caches nowhere; `extra` adds headers such as CORS or Allow. */
export function textAnswer(status: number, text: string, extra?: Record<string, string>): Answer {
  return {
    status,
    text,
    headers: extra === undefined ? TEXT_HEADERS : { ...extra, ...TEXT_HEADERS },
  };
}

export function methodNotAllowed(allow: string, extra?: Record<string, string>): Answer {
  return textAnswer(405, `Method not allowed: use ${allow}.`, { ...extra, allow });
}

export function payloadTooLarge(maxBytes: number, extra?: Record<string, string>): Answer {
  return textAnswer(413, `The request body is over the limit of ${maxBytes} bytes.`, extra);
}
