// Requests/s and latency of the gateway and token handlers on node:http over loopback, beside a bare
// node:http handler measured in the same run. The servers run in a worker thread so the load loop
// (keep-alive agent, fixed concurrency, fixed duration) does not share their event loop. The three
// servers are measured in interleaved rounds and each ratio is taken within its round, so that load
// from other processes on the machine hits the baseline and the handlers alike; medians are printed.
import { Agent, createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import {
  createGatewayHandler,
  createTokenHandler,
  encodeGatewayRequest,
  toNodeListener,
} from '../src/index.ts';

const SITE = {
  siteId: 'BENCH',
  siteKey: 'lU5D8s3PWoLls3PWFWkClULlFWk5D8oC',
  accessKey: 'LT2FVJDp2Xr018zf4Di6lzvNOv3DKP20',
};
const CONCURRENCY = 48;
const WARMUP_MS = 300;
const MEASURE_MS = 1000;
const ROUNDS = 5;

type Kind = 'bare' | 'adapter' | 'gateway' | 'token';

const GATEWAY_BODY = encodeGatewayRequest(
  {
    format: 'json',
    user_id: 'user-1',
    cid: 'movie-1',
    nonce: '3426u3050329384g',
    drm_type: 'Widevine',
  },
  SITE.siteKey,
);
const TOKEN_BODY = JSON.stringify({ cid: 'movie-1', drm_type: 'Widevine' });

// The baseline reads the body and answers a short text: the work any endpoint does at the least.
function bare(req: IncomingMessage, res: ServerResponse): void {
  req.on('data', () => undefined);
  req.on('end', () => {
    res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8', 'content-length': '2' });
    res.end('ok');
  });
}

function listenerFor(kind: Kind): (req: IncomingMessage, res: ServerResponse) => unknown {
  if (kind === 'bare') return bare;
  // The adapter alone around a handler that reads the body: what toNodeListener itself costs.
  if (kind === 'adapter') {
    return toNodeListener(async (request) => {
      await request.text();
      return new Response('ok', { headers: { 'content-type': 'text/plain; charset=utf-8' } });
    });
  }
  if (kind === 'gateway') {
    return toNodeListener(
      createGatewayHandler({
        siteKey: SITE.siteKey,
        authorize: () => ({ allow: true, playback_policy: { limit: true, duration: 86400 } }),
      }),
    );
  }
  return toNodeListener(
    createTokenHandler({
      ...SITE,
      authorize: () => ({
        allow: true,
        userId: 'user-1',
        policy: { playback_policy: { limit: true, duration: 600 } },
      }),
    }),
  );
}

if (!isMainThread && (workerData as { role?: string } | null)?.role === 'server') {
  const servers = (['bare', 'adapter', 'gateway', 'token'] as const).map((kind) => {
    const server = createServer(listenerFor(kind));
    server.keepAliveTimeout = 30_000;
    return { kind, server };
  });
  await Promise.all(
    servers.map(({ server }) => new Promise<void>((r) => server.listen(0, '127.0.0.1', r))),
  );
  parentPort?.postMessage(
    Object.fromEntries(
      servers.map(({ kind, server }) => [kind, (server.address() as AddressInfo).port]),
    ),
  );
}

interface Figures {
  rps: number;
  p50: number;
  p99: number;
  failures: number;
}

async function load(
  port: number,
  path: string,
  body: string,
  contentType: string,
): Promise<Figures> {
  const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  const latencies: number[] = [];
  let failures = 0;
  let recording = false;
  let stop = false;
  const one = () =>
    new Promise<void>((resolve) => {
      const started = performance.now();
      const req = request(
        {
          host: '127.0.0.1',
          port,
          path,
          method: 'POST',
          agent,
          headers: { 'content-type': contentType, 'content-length': Buffer.byteLength(body) },
        },
        (res) => {
          res.on('data', () => undefined);
          res.on('end', () => {
            if (res.statusCode !== 200) failures += 1;
            if (recording) latencies.push(performance.now() - started);
            resolve();
          });
        },
      );
      req.on('error', () => {
        failures += 1;
        resolve();
      });
      req.end(body);
    });
  const worker = async () => {
    while (!stop) await one();
  };
  const running = Array.from({ length: CONCURRENCY }, worker);
  await new Promise((r) => setTimeout(r, WARMUP_MS));
  recording = true;
  const start = performance.now();
  await new Promise((r) => setTimeout(r, MEASURE_MS));
  recording = false;
  const elapsed = performance.now() - start;
  stop = true;
  await Promise.all(running);
  agent.destroy();
  latencies.sort((a, b) => a - b);
  const at = (q: number) =>
    latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? NaN;
  return { rps: (latencies.length / elapsed) * 1000, p50: at(0.5), p99: at(0.99), failures };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? NaN;
}

export default async function (): Promise<void> {
  const worker = new Worker(new URL(import.meta.url), { workerData: { role: 'server' } });
  const ports = await new Promise<Record<Kind, number>>((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
  try {
    const form = 'application/x-www-form-urlencoded';
    const runs: Record<Kind, Figures[]> = { bare: [], adapter: [], gateway: [], token: [] };
    for (let round = 0; round < ROUNDS; round++) {
      runs.bare.push(await load(ports.bare, '/', GATEWAY_BODY, form));
      runs.adapter.push(await load(ports.adapter, '/', GATEWAY_BODY, form));
      runs.gateway.push(await load(ports.gateway, '/gateway', GATEWAY_BODY, form));
      runs.token.push(await load(ports.token, '/token', TOKEN_BODY, 'application/json'));
    }
    console.log(
      `loopback, keep-alive, concurrency ${CONCURRENCY}; ${ROUNDS} interleaved rounds of ${MEASURE_MS / 1000} s per server after ${WARMUP_MS} ms warm-up; servers in a worker thread; medians`,
    );
    console.log('| server | req/s | p50 ms | p99 ms | vs bare (same round) | failures |');
    console.log('|---|---:|---:|---:|---:|---:|');
    const names: Record<Kind, string> = {
      bare: 'bare node:http',
      adapter: 'toNodeListener, empty handler',
      gateway: 'gateway handler',
      token: 'token handler',
    };
    for (const kind of ['bare', 'adapter', 'gateway', 'token'] as const) {
      const list = runs[kind];
      const ratio = median(list.map((f, i) => f.rps / (runs.bare[i]?.rps ?? NaN)));
      console.log(
        `| ${names[kind]} | ${median(list.map((f) => f.rps)).toFixed(0)} | ${median(list.map((f) => f.p50)).toFixed(2)} | ${median(list.map((f) => f.p99)).toFixed(2)} | ${ratio.toFixed(2)} | ${list.reduce((n, f) => n + f.failures, 0)} |`,
      );
    }
  } finally {
    await worker.terminate();
  }
}
