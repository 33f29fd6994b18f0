// The emulator's latency tail under many keep-alive connections, beside a bare node:http server: p99
// per concurrency (1, 16, 64, 256), warm. A site load-tests its players against the emulator; a p99
// the emulator adds on its own (a collector pause, answers held for a batch) shows up as the site's.
// Servers in one child process, wrk in another; a warm-up run per server and concurrency, then
// interleaved rounds, medians. Goal: the emulator's p99 within 3x the bare server's at each
// concurrency (issue #38, point 24). See packages/site-kit/bench/README.md.
import { availableParallelism, loadavg } from 'node:os';
import { createTokenIssuer } from '@multidrm/site-kit';
import { createEmulatorHandler } from '../src/handler.ts';
import { toNodeListener } from '../src/http/node-adapter.ts';
import { goal } from '../../../scripts/bench-goal.ts';
import {
  bare,
  forkServers,
  measure,
  median,
  serveInChild,
  wrkMissing,
  type RunFigures,
} from '../../../scripts/bench-load.ts';
import { BODY, KEY, KID, PATH, SITE } from './license-fixture.ts';

const CONCURRENCIES = [1, 16, 64, 256];
const SECONDS = Number(process.env['BENCH_SECONDS'] ?? 2);
const ROUNDS = Number(process.env['BENCH_ROUNDS'] ?? 3);
const MAX_RATIO = 3;
const SERVER = 'MULTIDRM_BENCH_EMULATOR_TAIL';

if (process.env[SERVER] === '1') {
  await serveInChild({
    bare,
    emulator: toNodeListener(
      createEmulatorHandler({ sites: [SITE], keys: { movie: { kid: KID, key: KEY } } }),
      (error) => console.error(`emulator internal error: ${String(error)}`),
    ),
  });
}

export default async function (): Promise<void> {
  const missing = wrkMissing();
  if (missing !== undefined) {
    console.log(missing);
    goal(false, 'wrk installed', 'emulator tail benchmark');
    return;
  }
  const token = createTokenIssuer(SITE).issue({
    cid: 'movie',
    userId: 'user-1',
    drmType: 'Widevine',
  });
  const server = await forkServers(new URL(import.meta.url), { [SERVER]: '1' });
  const runs = new Map<string, RunFigures[]>();
  try {
    const ports = server.ports as Record<'bare' | 'emulator', number>;
    const answer = await fetch(`http://127.0.0.1:${ports.emulator}${PATH}`, {
      method: 'POST',
      headers: { 'x-drm-custom-data': token },
      body: BODY,
    });
    const license = (await answer.json()) as { keys?: unknown; errorCode?: string };
    if (license.keys === undefined)
      throw new Error(`the emulator refused: ${license.errorCode ?? answer.status}`);
    const spec = (kind: 'bare' | 'emulator', connections: number) => ({
      port: ports[kind],
      path: PATH,
      body: BODY,
      contentType: 'application/json',
      ...(kind === 'emulator' ? { headers: { 'x-drm-custom-data': token } } : {}),
      connections,
      seconds: SECONDS,
    });
    // Warm: both servers' code optimised and their heaps grown at the largest concurrency first.
    for (const kind of ['bare', 'emulator'] as const) await measure(server, spec(kind, 256), 2);
    for (let round = 0; round < ROUNDS; round++) {
      for (const connections of CONCURRENCIES) {
        for (const kind of ['bare', 'emulator'] as const) {
          const key = `${kind} ${connections}`;
          runs.set(key, [...(runs.get(key) ?? []), await measure(server, spec(kind, connections))]);
        }
      }
    }
  } finally {
    server.close();
  }
  console.log(
    `loopback, keep-alive, wrk -t1; warm (2 s at 256 connections per server first); ${ROUNDS} interleaved rounds of ${SECONDS} s per server and concurrency after 1 s warm-up; both servers in one child process; p99 is the median of the rounds' p99 (each round's in brackets)`,
  );
  // A p99 on a machine with more runnable processes than cores is the scheduler's as much as the
  // server's (the bare server's own p99 then moves 10-100x between rounds): the reader must see it.
  const [one, five] = loadavg();
  console.log(
    `machine: ${availableParallelism()} cores, load average ${one?.toFixed(2)} (1 min), ${five?.toFixed(2)} (5 min) at the end; with more load than cores, read the rounds' spread before the ratios`,
  );
  console.log(
    '| connections | bare p50 ms | bare p99 ms | emulator p50 ms | emulator p99 ms | p99 vs bare | goal |',
  );
  console.log('|---:|---:|---:|---:|---:|---:|---|');
  for (const connections of CONCURRENCIES) {
    const b = runs.get(`bare ${connections}`) ?? [];
    const e = runs.get(`emulator ${connections}`) ?? [];
    const p99 = (rs: RunFigures[]) => median(rs.map((r) => r.p99Ms));
    const p50 = (rs: RunFigures[]) => median(rs.map((r) => r.p50Ms));
    const rounds = (rs: RunFigures[]) => rs.map((r) => r.p99Ms.toFixed(2)).join(', ');
    const r = p99(e) / p99(b);
    const failures = [...b, ...e].reduce((n, f) => n + f.failures, 0);
    console.log(
      `| ${[
        String(connections),
        p50(b).toFixed(2),
        `${p99(b).toFixed(2)} (${rounds(b)})`,
        p50(e).toFixed(2),
        `${p99(e).toFixed(2)} (${rounds(e)})`,
        `${r.toFixed(2)}x`,
        goal(
          r <= MAX_RATIO && failures === 0,
          `emulator p99 <= ${MAX_RATIO}x the bare server's at ${connections} connections, warm, no failures`,
          'emulator tail',
        ) + (failures > 0 ? ` (${failures} failures)` : ''),
      ].join(' | ')} |`,
    );
  }
}
