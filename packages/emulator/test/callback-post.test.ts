import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { brotliCompressSync, deflateRawSync, deflateSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetchPost, nodePost, nodePostUsable, type Post } from '../src/http/callback-post.ts';

// The gateway callback goes over node:http on Node (fetch costs several times the rest of a
// gateway-mode license), over fetch elsewhere. The two must answer alike: same status, same text,
// the same failures, whatever the gateway does with encodings, redirects, sizes and time.

const LIMIT = 1000;
const TEXT = 'ü'.repeat(300); // 600 bytes of UTF-8
const big = 'x'.repeat(LIMIT + 1);
const answers: Record<string, (res: ServerResponse) => void> = {
  '/plain': (res) => res.end(TEXT),
  '/gzip': (res) => encoded(res, 'gzip', gzipSync(TEXT)),
  '/deflate': (res) => encoded(res, 'deflate', deflateSync(TEXT)),
  '/raw-deflate': (res) => encoded(res, 'deflate', deflateRawSync(TEXT)),
  '/br': (res) => encoded(res, 'br', brotliCompressSync(TEXT)),
  '/big': (res) => res.end(big),
  '/big-gzip': (res) => encoded(res, 'gzip', gzipSync(big)),
  '/redirect': (res) => {
    res.writeHead(302, { location: '/plain' });
    res.end();
  },
  '/slow': () => {},
};
const received: Record<string, string>[] = [];
let server: Server;
let base: string;

function encoded(res: ServerResponse, coding: string, bytes: Buffer): void {
  res.writeHead(200, { 'content-encoding': coding });
  res.end(bytes);
}

beforeAll(async () => {
  server = createServer((req: IncomingMessage, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      received.push({ ...(req.headers as Record<string, string>), body });
      answers[new URL(req.url ?? '/', 'http://x').pathname]?.(res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => {
  server.closeAllConnections();
  server.close();
});

const viaNode: Post = (url, body, timeoutMs) => nodePost(new URL(url), body, timeoutMs);
const viaFetch = fetchPost(globalThis.fetch);

async function outcome(post: Post, path: string, timeoutMs = 5000) {
  try {
    const answer = await post(`${base}${path}`, 'a=b&c=%C3%BC', timeoutMs);
    if (answer.status !== 200) {
      await answer.discard();
      return { status: answer.status };
    }
    return { status: answer.status, text: await answer.text(LIMIT) };
  } catch (error) {
    const { name, cause } = error as { name: string; cause?: { code?: string } };
    return { failed: name, code: cause?.code };
  }
}

describe('the gateway callback over node:http', () => {
  it('is what a Node server without a replaced fetch uses', () => {
    expect(nodePostUsable()).toBe(true);
  });

  it('answers as fetch does, whatever the encoding, size or redirect', async () => {
    for (const path of Object.keys(answers).filter((p) => p !== '/slow')) {
      const [node, fetched] = [await outcome(viaNode, path), await outcome(viaFetch, path)];
      expect({ path, ...node }).toEqual({ path, ...fetched });
    }
    expect(await outcome(viaNode, '/gzip')).toEqual({ status: 200, text: TEXT });
    expect(await outcome(viaNode, '/big-gzip')).toEqual({ status: 200, text: undefined });
    expect(await outcome(viaNode, '/redirect')).toEqual({ status: 302 });
  });

  it('sends the body and the request headers fetch sends', async () => {
    received.length = 0;
    await outcome(viaNode, '/plain');
    await outcome(viaFetch, '/plain');
    const [node, fetched] = received.map(({ host: _, ...rest }) => rest);
    expect(node).toEqual(fetched);
    expect(node?.['body']).toBe('a=b&c=%C3%BC');
  });

  it('fails as fetch does on a timeout and on a refused connection', async () => {
    expect(await outcome(viaNode, '/slow', 100)).toEqual({ failed: 'TimeoutError' });
    expect(await outcome(viaFetch, '/slow', 100)).toMatchObject({ failed: 'TimeoutError' });
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const refused = async (post: Post) => {
      try {
        await post(`http://127.0.0.1:${port}/`, '', 5000);
        return undefined;
      } catch (error) {
        return (error as { cause?: { code?: string } }).cause?.code;
      }
    };
    expect(await refused(viaNode)).toBe('ECONNREFUSED');
    expect(await refused(viaFetch)).toBe('ECONNREFUSED');
  });
});
