import type * as NodeHttp from 'node:http';
import type * as NodeZlib from 'node:zlib';
import { readTextLimited } from './read-body.ts';
import { utf8Text } from '../web/bytes.ts';

/** The answer to a callback POST: its status, then its body text or nothing. */
export interface PostAnswer {
  status: number;
  /** The body as UTF-8 text; undefined when it is larger than `limit` bytes (decoded). */
  text(limit: number): Promise<string | undefined>;
  /** Drops the body unread. */
  discard(): Promise<void>;
}

/**
 * POSTs a form body and resolves its answer. Fails as fetch fails: a `TimeoutError` after
 * `timeoutMs` (until the body is read), else a TypeError whose `cause` has the socket's `code`.
 */
export type Post = (url: string, body: string, timeoutMs: number) => Promise<PostAnswer>;

const FORM = 'application/x-www-form-urlencoded; charset=utf-8';

/** The callback through a fetch function; redirects are answers, not followed. */
export function fetchPost(doFetch: typeof fetch): Post {
  return async (url, body, timeoutMs) => {
    const signal = AbortSignal.timeout(timeoutMs);
    const response = await doFetch(url, {
      method: 'POST',
      headers: { 'content-type': FORM },
      body,
      redirect: 'manual',
      signal,
    });
    return {
      status: response.status,
      text: (limit) => readTextLimited(response.body, limit),
      discard: async () => {
        await response.body?.cancel().catch(() => {});
      },
    };
  };
}

type Builtins = { http: typeof NodeHttp; https: typeof NodeHttp; zlib: typeof NodeZlib };
const builtin = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process
  ?.getBuiltinModule;
const builtins: Builtins | undefined =
  builtin === undefined
    ? undefined
    : {
        http: builtin('node:http') as typeof NodeHttp,
        https: builtin('node:https') as typeof NodeHttp,
        zlib: builtin('node:zlib') as typeof NodeZlib,
      };
/** The global fetch as the runtime started with it: Node's own, unless replaced before this ran. */
const fetchAtStart = globalThis.fetch;

/**
 * node:http where it serves as the runtime's own fetch would: on Node (Bun, Deno), outside a DOM
 * environment (happy-dom, jsdom, whose fetch is the page's), while nobody has replaced the global
 * fetch (msw/node does: it intercepts node:http as well, but the rule stays simple). A fetch call
 * costs several times the rest of a gateway-mode license in CPU; the load tests of a site's gateway
 * run against this path.
 */
export function nodePostUsable(): boolean {
  return (
    builtins !== undefined &&
    globalThis.fetch === fetchAtStart &&
    (globalThis as { window?: unknown }).window === undefined
  );
}

let agents: { http: NodeHttp.Agent; https: NodeHttp.Agent } | undefined;

/**
 * The callback on node:http with keep-alive connections, sending what Node's fetch sends (the same
 * request headers, gzip and deflate answers decoded). Only for an http(s) URL without credentials
 * (fetch refuses those): see {@link postVia}.
 */
export function nodePost(url: URL, body: string, timeoutMs: number): Promise<PostAnswer> {
  const { http, https, zlib } = builtins as Builtins;
  agents ??= {
    http: new http.Agent({ keepAlive: true }),
    https: new https.Agent({ keepAlive: true }),
  };
  const secure = url.protocol === 'https:';
  return new Promise<PostAnswer>((resolve, reject) => {
    let fail = (error: unknown) => reject(error);
    const timer = setTimeout(() => {
      const error = new Error('The operation was aborted due to timeout');
      error.name = 'TimeoutError';
      request.destroy();
      fail(error);
    }, timeoutMs);
    // As AbortSignal.timeout's: a pending callback keeps the process alive by its socket alone.
    timer.unref();
    const request = (secure ? https : http).request(
      url,
      {
        method: 'POST',
        agent: secure ? agents?.https : agents?.http,
        headers: {
          'content-type': FORM,
          accept: '*/*',
          'accept-language': '*',
          'sec-fetch-mode': 'cors',
          'user-agent': 'node',
          'accept-encoding': 'gzip, deflate',
          'content-length': String(Buffer.byteLength(body)),
        },
      },
      (answer) => {
        resolve({
          status: answer.statusCode ?? 0,
          text: (limit) =>
            new Promise<string | undefined>((done, failed) => {
              fail = failed;
              readAnswer(answer, limit, zlib).then((text) => {
                clearTimeout(timer);
                done(text);
              }, failed);
            }),
          discard: async () => {
            clearTimeout(timer);
            answer.destroy();
          },
        });
      },
    );
    request.on('error', (error) => {
      clearTimeout(timer);
      fail(new TypeError('fetch failed', { cause: error }));
    });
    request.end(body);
  });
}

/** The callback's transport: `doFetch` when given, else node:http where usable, else fetch. */
export function postVia(doFetch: typeof fetch | undefined): Post {
  if (doFetch !== undefined) return fetchPost(doFetch);
  const viaFetch = fetchPost((input, init) => globalThis.fetch(input, init));
  // Gateway URLs come from the config: a handful, each parsed once.
  const plain = new Map<string, URL | undefined>();
  return (url, body, timeoutMs) => {
    if (!plain.has(url)) plain.set(url, plainUrl(url));
    const parsed = nodePostUsable() ? plain.get(url) : undefined;
    return parsed === undefined
      ? viaFetch(url, body, timeoutMs)
      : nodePost(parsed, body, timeoutMs);
  };
}

function plainUrl(url: string): URL | undefined {
  const parsed = URL.canParse(url) ? new URL(url) : undefined;
  if (parsed === undefined || !/^https?:$/.test(parsed.protocol)) return undefined;
  return parsed.username === '' && parsed.password === '' ? parsed : undefined;
}

/** The body, decoded as fetch decodes it, up to `limit` bytes of decoded answer. */
function readAnswer(
  answer: NodeHttp.IncomingMessage,
  limit: number,
  zlib: typeof NodeZlib,
): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    answer.on('data', (chunk: Buffer) => {
      size += chunk.byteLength;
      chunks.push(chunk);
      // Encoded answers are judged by their decoded size, below.
      if (size > limit && encodingOf(answer) === undefined) {
        answer.destroy();
        resolve(undefined);
      }
    });
    answer.once('error', (error) => reject(new TypeError('fetch failed', { cause: error })));
    answer.once('end', () => {
      try {
        resolve(decoded(Buffer.concat(chunks), encodingOf(answer), limit, zlib));
      } catch (error) {
        if ((error as { code?: unknown }).code === 'ERR_BUFFER_TOO_LARGE') resolve(undefined);
        else reject(new TypeError('fetch failed', { cause: error }));
      }
    });
  });
}

function encodingOf(answer: NodeHttp.IncomingMessage): string | undefined {
  const coding = answer.headers['content-encoding']?.trim().toLowerCase();
  return coding === undefined || coding === '' || coding === 'identity' ? undefined : coding;
}

function decoded(
  bytes: Buffer,
  coding: string | undefined,
  limit: number,
  zlib: typeof NodeZlib,
): string | undefined {
  let plain: Buffer = bytes;
  // A decoded answer larger than the limit stops the decoding (maxOutputLength), as a bomb would.
  const options = { maxOutputLength: limit + 1 };
  if (coding === 'gzip' || coding === 'x-gzip') plain = zlib.gunzipSync(bytes, options);
  else if (coding === 'deflate') {
    // A zlib stream starts with a header whose low nibble is 8; else it is raw deflate.
    plain =
      ((bytes[0] ?? 0) & 0x0f) === 8
        ? zlib.inflateSync(bytes, options)
        : zlib.inflateRawSync(bytes, options);
  } else if (coding === 'br') plain = zlib.brotliDecompressSync(bytes, options);
  else if (coding !== undefined) plain = bytes;
  return plain.byteLength > limit ? undefined : utf8Text(plain);
}
