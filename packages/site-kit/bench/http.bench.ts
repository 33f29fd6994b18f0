// Requests/s and latency of the gateway and token handlers on node:http over loopback, beside a bare
// node:http handler measured in the same run. The servers run in a child process, so the load loop
// (load.ts; here for a fixed duration) shares neither their thread nor their process: a load
// generator in the server's own thread would slow the baseline and the handlers alike and flatter the
// ratio. The servers are measured in interleaved rounds and each ratio is taken within its round, so
// that load from other processes on the machine hits the baseline and the handlers alike; medians.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createCipheriv, createDecipheriv, createSecretKey } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { fork, type ChildProcess } from 'node:child_process';
import {
  createGatewayHandler,
  createTokenHandler,
  encodeGatewayRequest,
  toNodeListener,
} from '../src/index.ts';
import { goal } from '../../../scripts/bench-goal.ts';
import { quantile, runLoad } from './load.ts';

const SITE = {
  siteId: 'BENCH',
  siteKey: 'lU5D8s3PWoLls3PWFWkClULlFWk5D8oC',
  accessKey: 'LT2FVJDp2Xr018zf4Di6lzvNOv3DKP20',
};
const CONCURRENCY = 48;
const WARMUP_MS = 300;
const MEASURE_MS = 1000;
const ROUNDS = 5;

type Kind = 'bare' | 'minimal' | 'adapter' | 'gateway' | 'token';

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

// A hand-written gateway without validation, events or web objects: what the abstractions are
// measured against.
const minimalKey = createSecretKey(Buffer.from(SITE.siteKey));
const IV = Buffer.from('0123456789abcdef');
function minimal(req: IncomingMessage, res: ServerResponse): void {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const data = new URLSearchParams(Buffer.concat(chunks).toString()).get('data') ?? '';
    const d = createDecipheriv('aes-256-cbc', minimalKey, IV);
    const plain = Buffer.concat([d.update(data, 'base64'), d.final()]).toString();
    const { nonce } = JSON.parse(plain) as { nonce: string };
    const answer = JSON.stringify({
      error_code: '0000',
      error_message: 'success',
      playback_policy: { limit: true, duration: 86400 },
      nonce,
    });
    const c = createCipheriv('aes-256-cbc', minimalKey, IV);
    const body = Buffer.concat([c.update(answer), c.final()]).toString('base64');
    res.writeHead(200, { 'content-type': 'text/plain', 'content-length': body.length });
    res.end(body);
  });
}

function listenerFor(kind: Kind): (req: IncomingMessage, res: ServerResponse) => unknown {
  if (kind === 'bare') return bare;
  if (kind === 'minimal') return minimal;
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

const SERVER_ROLE = 'MULTIDRM_BENCH_HTTP_SERVER';

if (process.env[SERVER_ROLE] === '1' && process.send !== undefined) {
  const servers = (['bare', 'minimal', 'adapter', 'gateway', 'token'] as const).map((kind) => {
    const server = createServer(listenerFor(kind));
    server.keepAliveTimeout = 30_000;
    return { kind, server };
  });
  await Promise.all(
    servers.map(({ server }) => new Promise<void>((r) => server.listen(0, '127.0.0.1', r))),
  );
  // CPU time of the server's thread: unlike req/s, it does not move with load from other processes.
  process.on('message', () => {
    const { user, system } = process.threadCpuUsage();
    process.send?.({ cpuMicros: user + system });
  });
  process.send(
    Object.fromEntries(
      servers.map(({ kind, server }) => [kind, (server.address() as AddressInfo).port]),
    ),
  );
}

interface Figures {
  rps: number;
  /** Server thread CPU time per answered request. */
  cpuMicros: number;
  p50: number;
  p99: number;
  failures: number;
}

async function load(
  server: ChildProcess,
  port: number,
  path: string,
  body: string,
  contentType: string,
): Promise<Figures> {
  const latencies: number[] = [];
  let failures = 0;
  let recording = false;
  let stop = false;
  const running = runLoad({
    port,
    concurrency: CONCURRENCY,
    next: () => (stop ? undefined : { path, body, contentType }),
    onAnswer: ({ status, ms }) => {
      if (status !== 200) failures += 1;
      if (recording) latencies.push(ms);
    },
    onError: () => {
      failures += 1;
    },
  });
  await new Promise((r) => setTimeout(r, WARMUP_MS));
  recording = true;
  const cpuStart = await serverCpu(server);
  const start = performance.now();
  await new Promise((r) => setTimeout(r, MEASURE_MS));
  recording = false;
  const elapsed = performance.now() - start;
  const cpu = (await serverCpu(server)) - cpuStart;
  stop = true;
  await running;
  latencies.sort((a, b) => a - b);
  return {
    rps: (latencies.length / elapsed) * 1000,
    cpuMicros: cpu / latencies.length,
    p50: quantile(latencies, 0.5),
    p99: quantile(latencies, 0.99),
    failures,
  };
}

function serverCpu(server: ChildProcess): Promise<number> {
  return new Promise((resolve) => {
    server.once('message', (m: { cpuMicros: number }) => resolve(m.cpuMicros));
    server.send('cpu');
  });
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? NaN;
}

export default async function (): Promise<void> {
  const worker = fork(new URL(import.meta.url), [], {
    env: { ...process.env, [SERVER_ROLE]: '1' },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const ports = await new Promise<Record<Kind, number>>((resolve, reject) => {
    worker.once('message', (m) => resolve(m as Record<Kind, number>));
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`the server process exited with ${code}`)));
  });
  try {
    const form = 'application/x-www-form-urlencoded';
    const runs: Record<Kind, Figures[]> = {
      bare: [],
      minimal: [],
      adapter: [],
      gateway: [],
      token: [],
    };
    for (let round = 0; round < ROUNDS; round++) {
      runs.bare.push(await load(worker, ports.bare, '/', GATEWAY_BODY, form));
      runs.minimal.push(await load(worker, ports.minimal, '/', GATEWAY_BODY, form));
      runs.adapter.push(await load(worker, ports.adapter, '/', GATEWAY_BODY, form));
      runs.gateway.push(await load(worker, ports.gateway, '/gateway', GATEWAY_BODY, form));
      runs.token.push(await load(worker, ports.token, '/token', TOKEN_BODY, 'application/json'));
    }
    console.log(
      `loopback, keep-alive, concurrency ${CONCURRENCY}; ${ROUNDS} interleaved rounds of ${MEASURE_MS / 1000} s per server after ${WARMUP_MS} ms warm-up; servers in a child process, the load generator in this one; medians`,
    );
    console.log(
      '| server | req/s | p50 ms | p99 ms | req/s vs bare (same round) | server CPU µs/req | 1 core req/s vs bare | failures | goal |',
    );
    console.log('|---|---:|---:|---:|---:|---:|---:|---:|---|');
    const names: Record<Kind, string> = {
      bare: 'bare node:http',
      minimal: 'hand-written gateway, no validation',
      adapter: 'toNodeListener + a plain web handler (empty)',
      gateway: 'gateway handler',
      token: 'token handler',
    };
    for (const kind of ['bare', 'minimal', 'adapter', 'gateway', 'token'] as const) {
      const list = runs[kind];
      const ratio = median(list.map((f, i) => f.rps / (runs.bare[i]?.rps ?? NaN)));
      const cpu = median(list.map((f) => f.cpuMicros));
      // CPU per request bounds what one core can serve: the ratio of those bounds is load-independent.
      const cpuRatio = median(runs.bare.map((f) => f.cpuMicros)) / cpu;
      const cells = [
        names[kind],
        median(list.map((f) => f.rps)).toFixed(0),
        median(list.map((f) => f.p50)).toFixed(2),
        median(list.map((f) => f.p99)).toFixed(2),
        ratio.toFixed(2),
        cpu.toFixed(0),
        cpuRatio.toFixed(2),
        String(list.reduce((n, f) => n + f.failures, 0)),
        kind === 'gateway'
          ? goal(ratio >= 0.6, 'req/s >= 0.6x bare', 'gateway over node:http vs bare node:http')
          : '',
      ];
      console.log(`| ${cells.join(' | ')} |`);
    }
  } finally {
    worker.kill();
  }
}
