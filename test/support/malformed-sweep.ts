import { connect } from 'node:net';

// The malformed-input sweep: many malformed requests per endpoint, generated from a seed (the same
// requests every run), against any server the project ships. Two drivers share the generator:
// - `sweepHttp` speaks raw HTTP/1.1 over a socket, so it can send what no HTTP client library would:
//   TRACE and unknown methods, broken framing, a client that hangs up mid-body or right after the
//   status line. It needs only an origin: the site-kit handlers, the emulator's server, the demo's.
// - `sweepWebHandler` calls a web-standard handler directly, for the transport-free part of a server
//   (cases a web Request cannot carry, such as TRACE, are the HTTP adapter's and are left out).
// Each request has its own time limit; traffic goes to 127.0.0.1 only. The caller asserts on the
// report: no 5xx, every request answered, and (from its own log capture) no internal-error line.

export interface SweepCase {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: Uint8Array;
  /** Raw driver: how the request ends (a web handler gets every case as 'whole'). */
  ending: 'whole' | 'hang-up-mid-body' | 'hang-up-after-status' | 'wrong-length';
}

export interface SweepReport {
  sent: number;
  /** How many answers had each status. */
  statuses: Record<number, number>;
  /** Every 5xx, with what was sent (body shortened). */
  serverErrors: string[];
  /** Requests that should have been answered and were not within the time limit. */
  unanswered: string[];
}

/** A small seeded generator (mulberry32): the same sweep on every run, no dependency. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const METHODS = ['GET', 'HEAD', 'POST', 'POST', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'];
const RAW_ONLY_METHODS = ['TRACE', 'PROPFIND', 'FOO', 'M-SEARCH'];
const CONTENT_TYPES = [
  'application/json',
  'application/json; charset=utf-8',
  'text/plain',
  'application/x-www-form-urlencoded',
  'application/octet-stream',
  'multipart/form-data; boundary=x',
  'application/json; charset=latin1',
  '',
  '*/*',
  'text/html',
];
const ORIGINS = ['', 'null', 'https://evil.test', 'http://127.0.0.1', 'http://localhost:1'];

function bodyOf(next: () => number): Uint8Array {
  const pick = <T>(items: readonly T[]) => items[Math.floor(next() * items.length)] as T;
  const kind = Math.floor(next() * 10);
  const text = (s: string) => new TextEncoder().encode(s);
  switch (kind) {
    case 0:
      return Uint8Array.from({ length: Math.floor(next() * 600) }, () => Math.floor(next() * 256));
    case 1:
      return text(pick(['', '{', '}', '[]', 'null', '"x"', '0', '{"cid":', 'data=', 'data=%%%']));
    case 2:
      return text(`${'['.repeat(3000 + Math.floor(next() * 5000))}`);
    case 3:
      return text(`{"a":${'{"a":'.repeat(2000)}1${'}'.repeat(2001)}`);
    case 4:
      return text(
        JSON.stringify({
          cid: pick(['', 'm', 7, null, {}]),
          drm_type: pick(['x', 1, 'Widevine', 'widevine']),
        }),
      );
    case 5:
      return text(
        `data=${Buffer.from(Uint8Array.from({ length: 16 * (1 + Math.floor(next() * 4)) }, () => Math.floor(next() * 256))).toString('base64')}`,
      );
    case 6:
      return text(
        JSON.stringify({
          kids: [pick(['', 'AAAA', '!!', 'x'.repeat(300)])],
          type: pick(['temporary', 'x', 1]),
        }),
      );
    case 7:
      return new Uint8Array([0xff, 0xfe, 0x00, 0xc0, 0xaf, 0xed, 0xa0, 0x80]);
    case 8:
      return text('x'.repeat(Math.floor(next() * 200_000)));
    default:
      return text('\u0000\u202e<RES><USERID>\u0000</USERID></RES>');
  }
}

/** `count` cases for `path`, from `seed`. `raw` adds what only a raw socket can send. */
export function sweepCases(path: string, count: number, seed: number, raw: boolean): SweepCase[] {
  const next = random(seed);
  const pick = <T>(items: readonly T[]) => items[Math.floor(next() * items.length)] as T;
  const methods = raw ? [...METHODS, ...RAW_ONLY_METHODS] : METHODS;
  const paths = [
    path,
    `${path}?x=1&x=2`,
    `${path}?%zz`,
    `${path}/`,
    `${path}%00`,
    `${path}?${'q'.repeat(3000)}`,
  ];
  const endings: SweepCase['ending'][] = raw
    ? [
        'whole',
        'whole',
        'whole',
        'whole',
        'hang-up-mid-body',
        'hang-up-after-status',
        'wrong-length',
      ]
    : ['whole'];
  return Array.from({ length: count }, () => {
    const headers: Record<string, string> = {};
    const type = pick(CONTENT_TYPES);
    if (type !== '') headers['content-type'] = type;
    const origin = pick(ORIGINS);
    if (origin !== '') headers['origin'] = origin;
    if (next() < 0.2)
      headers['sec-fetch-site'] = pick(['cross-site', 'same-site', 'same-origin', 'none', '?']);
    if (next() < 0.2) headers['x-drm-custom-data'] = pick(['', '!!', 'e30=', 'x'.repeat(5000)]);
    if (next() < 0.1) headers['access-control-request-method'] = pick(['POST', 'TRACE', '']);
    return {
      method: pick(methods),
      path: pick(paths),
      headers,
      body: bodyOf(next),
      ending: pick(endings),
    };
  });
}

function describeCase(c: SweepCase): string {
  const body = Buffer.from(c.body).toString('latin1');
  return `${c.method} ${c.path.slice(0, 80)} ${JSON.stringify(c.headers).slice(0, 160)} [${c.ending}] ${JSON.stringify(body.slice(0, 60))}${body.length > 60 ? `... (${body.length} bytes)` : ''}`;
}

function emptyReport(): SweepReport {
  return { sent: 0, statuses: {}, serverErrors: [], unanswered: [] };
}

function record(report: SweepReport, c: SweepCase, status: number | undefined): void {
  report.sent++;
  if (status === undefined) {
    if (c.ending === 'whole' || c.ending === 'hang-up-after-status')
      report.unanswered.push(describeCase(c));
    return;
  }
  report.statuses[status] = (report.statuses[status] ?? 0) + 1;
  if (status >= 500) report.serverErrors.push(`${status} <- ${describeCase(c)}`);
}

/** Sends one case over a raw socket; resolves with the status, or undefined when none came. */
function sendRaw(origin: string, c: SweepCase, timeoutMs: number): Promise<number | undefined> {
  const url = new URL(origin);
  if (url.hostname !== '127.0.0.1')
    throw new Error(`the sweep only sends to 127.0.0.1, not ${url.hostname}`);
  return new Promise((resolve) => {
    const socket = connect(Number(url.port), '127.0.0.1');
    let data = '';
    let done = false;
    const finish = (status: number | undefined) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(status);
    };
    const timer = setTimeout(() => finish(undefined), timeoutMs);
    socket.on('error', () => finish(statusOf(data)));
    socket.on('close', () => finish(statusOf(data)));
    socket.on('data', (chunk: Buffer) => {
      data += chunk.toString('latin1');
      const status = statusOf(data);
      if (status !== undefined) finish(status);
    });
    socket.on('connect', () => {
      const length = c.ending === 'wrong-length' ? c.body.length + 10 : c.body.length;
      const sendsBody = c.body.length > 0 && c.method !== 'GET' && c.method !== 'HEAD';
      const head = [
        `${c.method} ${c.path} HTTP/1.1`,
        `host: ${url.host}`,
        'connection: close',
        ...Object.entries(c.headers).map(([name, value]) => `${name}: ${value}`),
        ...(sendsBody ? [`content-length: ${length}`] : []),
        '',
        '',
      ].join('\r\n');
      socket.write(head);
      if (!sendsBody) return;
      if (c.ending === 'hang-up-mid-body') {
        socket.write(c.body.subarray(0, Math.floor(c.body.length / 2)));
        // Let the server start reading, then go away without a word.
        setTimeout(() => finish(undefined), 5);
        return;
      }
      socket.write(c.body);
      if (c.ending === 'wrong-length') setTimeout(() => finish(statusOf(data)), 50);
    });
  });
}

function statusOf(data: string): number | undefined {
  const match = /^HTTP\/1\.[01] (\d{3})/.exec(data);
  return match ? Number(match[1]) : undefined;
}

/** The raw-HTTP sweep of `paths` on the server at `origin` (http://127.0.0.1:port). */
export async function sweepHttp(
  origin: string,
  paths: readonly string[],
  options: { perPath: number; seed?: number; timeoutMs?: number; concurrency?: number },
): Promise<SweepReport> {
  const report = emptyReport();
  const { perPath, seed = 30, timeoutMs = 5_000, concurrency = 4 } = options;
  for (const [i, path] of paths.entries()) {
    const cases = sweepCases(path, perPath, seed + i, true);
    for (let at = 0; at < cases.length; at += concurrency) {
      const batch = cases.slice(at, at + concurrency);
      const statuses = await Promise.all(batch.map((c) => sendRaw(origin, c, timeoutMs)));
      batch.forEach((c, j) => record(report, c, statuses[j]));
    }
  }
  return report;
}

/** The same sweep on a web-standard handler, without any HTTP adapter. */
export async function sweepWebHandler(
  handler: (request: Request) => Promise<Response>,
  paths: readonly string[],
  options: { perPath: number; seed?: number },
): Promise<SweepReport> {
  const report = emptyReport();
  const { perPath, seed = 30 } = options;
  for (const [i, path] of paths.entries()) {
    for (const c of sweepCases(path, perPath, seed + i, false)) {
      const hasBody = c.method !== 'GET' && c.method !== 'HEAD';
      const request = new Request(`http://127.0.0.1${c.path}`, {
        method: c.method,
        headers: c.headers,
        ...(hasBody ? { body: c.body as Uint8Array<ArrayBuffer> } : {}),
      });
      const response = await handler(request);
      // Only the status is looked at; a stream (GET /events) is not read to its end.
      await response.body?.cancel();
      record(report, c, response.status);
    }
  }
  return report;
}
