// The modules themselves, read at each call: test tools (msw, nock) patch `http.request` on them,
// which named imports, bound when this module loads, would not see.
import http, { type IncomingMessage, type RequestOptions } from 'node:http';
import https from 'node:https';
import { urlToHttpOptions } from 'node:url';
import { createTurnQueue } from '../http/write-batch.ts';
import { createSocketPool, type SocketPool } from './socket-pool.ts';
import type { ProxyFailure } from './errors.ts';
import { upstreamFailure, type Transport, type UpstreamAnswer } from './upstream.ts';

/** Where a URL goes, as node:http's options: parsed once per URL, not once per request. */
interface Target {
  secure: boolean;
  options: RequestOptions;
  pool: SocketPool;
}

/**
 * The transport over node:http(s) on kept connections (socket-pool.ts), for the Node build: on
 * Node it costs a fraction of a web fetch per request (see `pnpm bench proxy`). TLS is verified as
 * node:tls always does; nothing here turns it off. The deadline destroys the request, socket and
 * all.
 */
export function nodeTransport(): Transport {
  // The calls' writes go out together at the end of the turn that made them, as toNodeListener's
  // answers do: written as each was made, interleaved with the next requests' work, they cost the
  // proxy 7-9 % more CPU per license request (84.3 -> 76.7 µs, 91.7 -> 87.8 µs in two runs of
  // `pnpm bench proxy`'s load, old and new in the same run). A call waits one turn: microseconds.
  const later = createTurnQueue();
  // One pool per origin: the license, certificate and server-info URLs share their connections.
  const pools = new Map<string, SocketPool>();
  // The proxy calls a few fixed URLs (the license URL, the certificates): a URL string given to
  // http.request is parsed again on every call, which cost as much as the rest of the call's setup.
  const targets = new Map<string, Target>();
  const targetOf = (url: string): Target => {
    let target = targets.get(url);
    if (target === undefined) {
      const secure = url.startsWith('https:');
      const parsed = new URL(url);
      const { protocol, hostname, path } = urlToHttpOptions(parsed);
      const port = parsed.port === '' ? (secure ? 443 : 80) : Number(parsed.port);
      // urlToHttpOptions gives an IPv6 address without its brackets, as net.connect wants it.
      const host = hostname ?? 'localhost';
      let pool = pools.get(parsed.origin);
      if (pool === undefined) {
        pool = createSocketPool({ secure, hostname: host, port });
        if (pools.size < 64) pools.set(parsed.origin, pool);
      }
      target = {
        secure,
        pool,
        options: { protocol, hostname: host, port, path, createConnection: pool.connection },
      };
      // Bounded anyway (the URLs come from the options), but never let a bug make it grow.
      if (targets.size < 64) targets.set(url, target);
    }
    return target;
  };
  return (call, limits) =>
    new Promise<UpstreamAnswer>((resolve, reject) => {
      const { secure, options, pool } = targetOf(call.url);
      let settled = false;
      const fail = (failure: ProxyFailure) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        req.destroy();
        reject(failure);
      };
      // Asked for, as the Agent's requests do: node:http then frees the connection for the pool.
      const headers: Record<string, string> = { ...call.headers, connection: 'keep-alive' };
      if (call.body !== null) headers['content-length'] = String(call.body.byteLength);
      const req = (secure ? https.request : http.request)({
        ...options,
        method: call.method,
        headers,
      });
      const timer = setTimeout(() => fail(upstreamFailure('timeout', limits)), limits.deadlineMs);
      req.on('error', () => fail(upstreamFailure('unreachable', limits)));
      req.on('response', (res: IncomingMessage) => {
        const status = res.statusCode ?? 0;
        if (status >= 300 && status < 400) return fail(upstreamFailure('redirect', limits, status));
        const head = answerHead(res.rawHeaders);
        if (head.keepAlive !== undefined) pool.keepAliveHint(res.socket, head.keepAlive);
        if (head.length > limits.maxAnswerBytes) {
          return fail(upstreamFailure('too-large', limits));
        }
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.byteLength;
          if (size > limits.maxAnswerBytes) fail(upstreamFailure('too-large', limits));
          else chunks.push(chunk);
        });
        res.on('error', () => fail(upstreamFailure('broken', limits)));
        res.on('aborted', () => fail(upstreamFailure('broken', limits)));
        res.on('end', () => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          // A Buffer is the Uint8Array it claims to be; kept as one, node:http writes it out as it
          // is, where a plain Uint8Array view is wrapped in a Buffer again on the way out.
          const joined = chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks);
          resolve({
            status,
            contentType: head.type,
            bytes: joined as Uint8Array as Uint8Array<ArrayBuffer>,
          });
        });
      });
      later(() => {
        // Failed meanwhile (a deadline shorter than a turn): there is nothing left to send.
        if (settled) return;
        try {
          req.end(call.body ?? undefined);
        } catch (error) {
          settled = true;
          clearTimeout(timer);
          req.destroy();
          reject(error);
        }
      });
    });
}

interface AnswerHead {
  /** The declared length, 0 when none. */
  length: number;
  type: string | null;
  keepAlive: string | undefined;
}

/**
 * What the transport reads of the answer's head, from its raw lines: `res.headers` would build an
 * object of every header for three of them. The first of a repeated header counts, as in
 * `res.headers` for these (node:http's parser refuses two different lengths).
 */
function answerHead(raw: string[]): AnswerHead {
  const head: AnswerHead = { length: 0, type: null, keepAlive: undefined };
  let lengthSeen = false;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i] as string;
    // The length first: most names are none of the three, and no string is made for them.
    const size = name.length;
    if (size !== 14 && size !== 12 && size !== 10) continue;
    const lower = name.toLowerCase();
    const value = raw[i + 1] as string;
    if (lower === 'content-length' && !lengthSeen) {
      lengthSeen = true;
      head.length = Number(value);
    } else if (lower === 'content-type' && head.type === null) head.type = value;
    else if (lower === 'keep-alive' && head.keepAlive === undefined) head.keepAlive = value;
  }
  return head;
}
