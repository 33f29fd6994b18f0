// The modules themselves, read at each call: test tools (msw, nock) patch `http.request` on them,
// which named imports, bound when this module loads, would not see.
import http, { type IncomingMessage, type RequestOptions } from 'node:http';
import https from 'node:https';
import { urlToHttpOptions } from 'node:url';
import { createTurnQueue } from '../http/write-batch.ts';
import type { ProxyFailure } from './errors.ts';
import { upstreamFailure, type Transport, type UpstreamAnswer } from './upstream.ts';

/** Where a URL goes, as node:http's options: parsed once per URL, not once per request. */
interface Target {
  secure: boolean;
  options: RequestOptions;
}

/**
 * The transport over node:http(s) with keep-alive agents, for the Node build: on Node it costs a
 * fraction of a web fetch per request (see `pnpm bench proxy`). TLS is verified as node:https
 * always does; nothing here turns it off. The deadline destroys the request, socket and all.
 */
export function nodeTransport(): Transport {
  // The calls' writes go out together at the end of the turn that made them, as toNodeListener's
  // answers do: written as each was made, interleaved with the next requests' work, they cost the
  // proxy 7-9 % more CPU per license request (84.3 -> 76.7 µs, 91.7 -> 87.8 µs in two runs of
  // `pnpm bench proxy`'s load, old and new in the same run). A call waits one turn: microseconds.
  const later = createTurnQueue();
  const agents = {
    http: new http.Agent({ keepAlive: true }),
    https: new https.Agent({ keepAlive: true }),
  };
  // The proxy calls a few fixed URLs (the license URL, the certificates): a URL string given to
  // http.request is parsed again on every call, which cost as much as the rest of the call's setup.
  const targets = new Map<string, Target>();
  const targetOf = (url: string): Target => {
    let target = targets.get(url);
    if (target === undefined) {
      const secure = url.startsWith('https:');
      const { protocol, hostname, port, path } = urlToHttpOptions(new URL(url));
      target = {
        secure,
        options: {
          protocol,
          hostname,
          ...(port === undefined || port === '' ? {} : { port: Number(port) }),
          path,
          agent: secure ? agents.https : agents.http,
        },
      };
      // Bounded anyway (the URLs come from the options), but never let a bug make it grow.
      if (targets.size < 64) targets.set(url, target);
    }
    return target;
  };
  return (call, limits) =>
    new Promise<UpstreamAnswer>((resolve, reject) => {
      const { secure, options } = targetOf(call.url);
      let settled = false;
      const fail = (failure: ProxyFailure) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        req.destroy();
        reject(failure);
      };
      const headers: Record<string, string> = { ...call.headers };
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
        if (Number(res.headers['content-length'] ?? 0) > limits.maxAnswerBytes) {
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
            contentType: res.headers['content-type'] ?? null,
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
