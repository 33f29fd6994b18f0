import { readFile, stat } from 'node:fs/promises';
import { extname, join, resolve, sep } from 'node:path';

const TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json',
  '.mpd': 'application/dash+xml',
  '.m3u8': 'application/vnd.apple.mpegurl',
  '.mp4': 'video/mp4',
  '.m4s': 'video/iso.segment',
};

/** What the content server serves: manifests, playlists and segments, nothing else (no keys.json). */
export const MEDIA_TYPES: ReadonlySet<string> = new Set(['.mpd', '.m3u8', '.mp4', '.m4s']);

export interface StaticOptions {
  /** Headers added to every answer (CSP, CORS). */
  headers?: Record<string, string>;
  /** Served for "/". */
  index?: string;
  /** When given, only files with these extensions are served; any other is a 404. */
  extensions?: ReadonlySet<string>;
}

/** GET/HEAD of the files under `root`; any path that leaves it, or does not exist, is a 404. */
export function createStaticHandler(root: string, options: StaticOptions = {}) {
  const base = resolve(root);
  const extra = options.headers ?? {};
  const notFound = () =>
    new Response('Not found.\n', {
      status: 404,
      headers: { ...extra, 'content-type': 'text/plain; charset=utf-8' },
    });

  return async (request: Request): Promise<Response> => {
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      return new Response('Method not allowed: use GET.\n', {
        status: 405,
        headers: { ...extra, allow: 'GET, HEAD', 'content-type': 'text/plain; charset=utf-8' },
      });
    }
    let pathname: string;
    try {
      pathname = decodeURIComponent(new URL(request.url).pathname);
    } catch {
      return notFound();
    }
    if (pathname === '/' && options.index) pathname = `/${options.index}`;
    if (pathname.includes('\0')) return notFound();
    const file = resolve(join(base, pathname));
    if (file !== base && !file.startsWith(base + sep)) return notFound();
    if (options.extensions !== undefined && !options.extensions.has(extname(file))) {
      return notFound();
    }
    try {
      if (!(await stat(file)).isFile()) return notFound();
      const body = await readFile(file);
      const type = TYPES[extname(file)] ?? 'application/octet-stream';
      return new Response(request.method === 'HEAD' ? null : body, {
        status: 200,
        headers: {
          ...extra,
          'content-type': type,
          'content-length': String(body.byteLength),
          'cache-control': 'no-cache',
        },
      });
    } catch {
      return notFound();
    }
  };
}
