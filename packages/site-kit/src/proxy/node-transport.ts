// The modules themselves, read at each call: test tools (msw, nock) patch `http.request` on them,
// which named imports, bound when this module loads, would not see.
import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import type { ProxyFailure } from './errors.ts';
import { upstreamFailure, type Transport, type UpstreamAnswer } from './upstream.ts';

/**
 * The transport over node:http(s) with keep-alive agents, for the Node build: on Node it costs a
 * fraction of a web fetch per request (see `pnpm bench proxy`). TLS is verified as node:https
 * always does; nothing here turns it off. The deadline destroys the request, socket and all.
 */
export function nodeTransport(): Transport {
  const agents = {
    http: new http.Agent({ keepAlive: true }),
    https: new https.Agent({ keepAlive: true }),
  };
  return (call, limits) =>
    new Promise<UpstreamAnswer>((resolve, reject) => {
      const secure = call.url.startsWith('https:');
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
      const req = (secure ? https.request : http.request)(call.url, {
        method: call.method,
        headers,
        agent: secure ? agents.https : agents.http,
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
          const joined = chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks);
          resolve({
            status,
            contentType: res.headers['content-type'] ?? null,
            bytes: new Uint8Array(
              joined.buffer,
              joined.byteOffset,
              joined.byteLength,
            ) as Uint8Array<ArrayBuffer>,
          });
        });
      });
      req.end(call.body ?? undefined);
    });
}
