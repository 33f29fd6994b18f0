import { createServer, type Server } from 'node:http';
import { readFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { extname, join, resolve, sep } from 'node:path';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mpd': 'application/dash+xml',
  '.mp4': 'video/mp4',
  '.m4s': 'video/iso.segment',
  '.png': 'image/png',
  '.json': 'application/json',
  '.css': 'text/css; charset=utf-8',
};

export interface StaticServer {
  /** Origin of the server, e.g. http://127.0.0.1:40123 */
  origin: string;
  /** Added before every answer, like a CDN's round trip (0 by default; benches raise it). */
  latencyMs: number;
  close(): Promise<void>;
}

/**
 * Serves directories under URL prefixes (`{ '/content/': dir, '/': pageDir }`), GET and HEAD only,
 * with `no-store` so every load in a run fetches the same way.
 */
export async function startStaticServer(mounts: Record<string, string>): Promise<StaticServer> {
  const roots = Object.entries(mounts)
    .map(([prefix, dir]) => [prefix, resolve(dir)] as const)
    .sort((a, b) => b[0].length - a[0].length);
  const server = createServer((req, res) => {
    const answer = (status: number, text: string) => {
      res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8' });
      res.end(text);
    };
    if (req.method !== 'GET' && req.method !== 'HEAD') return answer(405, 'GET only.\n');
    let path: string;
    try {
      path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
    } catch {
      return answer(400, 'Bad path.\n');
    }
    if (path.endsWith('/')) path += 'index.html';
    const mount = roots.find(([prefix]) => path.startsWith(prefix));
    if (mount === undefined) return answer(404, 'Not found.\n');
    const [prefix, root] = mount;
    const file = resolve(join(root, path.slice(prefix.length)));
    if (file !== root && !file.startsWith(root + sep)) return answer(404, 'Not found.\n');
    Promise.all([readFile(file), sleep(statics.latencyMs)]).then(
      ([body]) => {
        res.writeHead(200, {
          'content-type': TYPES[extname(file)] ?? 'application/octet-stream',
          'content-length': body.length,
          'cache-control': 'no-store',
        });
        res.end(req.method === 'HEAD' ? undefined : body);
      },
      () => answer(404, 'Not found.\n'),
    );
  });
  const statics: StaticServer = {
    origin: await listen(server),
    latencyMs: 0,
    close: () => closeServer(server),
  };
  return statics;
}

const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

export async function listen(server: Server): Promise<string> {
  await new Promise<void>((done, fail) => {
    server.once('error', fail);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', fail);
      done();
    });
  });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** Stops listening and cuts keep-alive and hanging connections, so closing never waits on a client. */
export function closeServer(server: Server): Promise<void> {
  return new Promise((done, fail) => {
    server.close((error) => (error ? fail(error) : done()));
    server.closeAllConnections();
  });
}
