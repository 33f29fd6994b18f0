// What the emulator allocates per license, and what its collector then does: the cause of its
// latency tail (tail.bench.ts), since a pause stops every request in flight. Two measures, in a
// child process of their own so that nothing else run by `pnpm bench` is counted:
// - the handler's core alone, in process (no HTTP): 256 licenses in flight, a fixed count of them;
// - through node:http on loopback under wrk (256 keep-alive connections), beside a bare node:http
//   server, which is what node:http itself allocates per request.
// Bytes allocated = heap used after - before + what every collection in between freed (v8's
// GCProfiler). "Old space direct" is old space that grew between collections, not by promotion.
// No goal: a figure to compare before and after a change. See packages/site-kit/bench/README.md.
import { fork, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GCProfiler, getHeapStatistics, type GCProfilerResult } from 'node:v8';
import { createTokenIssuer } from '@multidrm/site-kit';
import { createEmulatorHandler } from '../src/handler.ts';
import { coreOf, type Call } from '../src/http/exchange.ts';
import { toNodeListener } from '../src/http/node-adapter.ts';
import { bare, wrkMissing } from '../../../scripts/bench-load.ts';
import { BODY, KEY, KID, PATH, SITE } from './license-fixture.ts';

const IN_FLIGHT = 256;
const LICENSES = Number(process.env['BENCH_LICENSES'] ?? 100_000);
const SECONDS = Number(process.env['BENCH_SECONDS'] ?? 4);
const CHILD = 'MULTIDRM_BENCH_EMULATOR_ALLOC';

interface Figures {
  count: number;
  bytes: number;
  promoted: number;
  oldDirect: number;
  scavenges: number;
  markCompacts: number;
}

type SpaceStats = GCProfilerResult['statistics'][number]['afterGC'];
const oldSpace = (s: SpaceStats) =>
  s.heapSpaceStatistics.find((space) => space.spaceName === 'old_space')?.spaceUsedSize ?? 0;

/** Runs `work` under a GC profiler; the figures per unit of what it returns (licenses served). */
async function counted(work: () => Promise<number>): Promise<Figures> {
  const before = getHeapStatistics().used_heap_size;
  const profiler = new GCProfiler();
  profiler.start();
  const count = await work();
  const { statistics } = profiler.stop();
  const after = getHeapStatistics().used_heap_size;
  const f: Figures = {
    count,
    bytes: after - before,
    promoted: 0,
    oldDirect: 0,
    scavenges: 0,
    markCompacts: 0,
  };
  let lastOld: number | undefined;
  for (const gc of statistics) {
    f.bytes += gc.beforeGC.heapStatistics.usedHeapSize - gc.afterGC.heapStatistics.usedHeapSize;
    if (gc.gcType === 'Scavenge') {
      f.scavenges++;
      f.promoted += oldSpace(gc.afterGC) - oldSpace(gc.beforeGC);
    }
    if (gc.gcType === 'MarkSweepCompact') f.markCompacts++;
    if (lastOld !== undefined) f.oldDirect += Math.max(0, oldSpace(gc.beforeGC) - lastOld);
    lastOld = oldSpace(gc.afterGC);
  }
  return f;
}

function tokenOf(): string {
  return createTokenIssuer(SITE).issue({ cid: 'movie', userId: 'user-1', drmType: 'Widevine' });
}

const emulator = () =>
  createEmulatorHandler({ sites: [SITE], keys: { movie: { kid: KID, key: KEY } } });

async function inProcess(): Promise<Figures> {
  const core = coreOf(emulator());
  if (core === undefined) throw new Error('the emulator handler has no core');
  const headers: Record<string, string> = {
    'x-drm-custom-data': tokenOf(),
    'content-type': 'application/json',
  };
  const body = new TextEncoder().encode(BODY);
  const call: Call = {
    method: 'POST',
    path: PATH,
    query: '',
    header: (name) => headers[name.toLowerCase()] ?? null,
    body: () => Promise.resolve(body),
  };
  const run = async (n: number) => {
    let started = 0;
    const worker = async () => {
      while (started++ < n) await core(call);
    };
    await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
    return n;
  };
  await run(LICENSES / 2); // warm: optimised code, grown heap
  return counted(() => run(LICENSES));
}

async function overHttp(
  listener: (req: IncomingMessage, res: ServerResponse) => void,
  token: string,
): Promise<Figures> {
  let served = 0;
  const server = createServer((req, res) => {
    served++;
    listener(req, res);
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const script = [
    'wrk.method = "POST"',
    `wrk.body = [==[${BODY}]==]`,
    'wrk.headers["Content-Type"] = "application/json"',
    `wrk.headers["x-drm-custom-data"] = [==[${token}]==]`,
  ].join('\n');
  const dir = mkdtempSync(join(tmpdir(), 'multidrm-alloc-'));
  const file = join(dir, 'load.lua');
  writeFileSync(file, script);
  const load = (seconds: number) =>
    new Promise<void>((resolve, reject) => {
      const wrk = spawn(
        'wrk',
        ['-t1', '-c256', `-d${seconds}s`, '-s', file, `http://127.0.0.1:${port}${PATH}`],
        { stdio: ['ignore', 'ignore', 'inherit'] },
      );
      wrk.once('error', reject);
      wrk.once('exit', (code) =>
        code === 0 ? resolve() : reject(new Error(`wrk exited ${code}`)),
      );
    });
  try {
    await load(2); // warm
    const from = served;
    return await counted(async () => {
      await load(SECONDS);
      return served - from;
    });
  } finally {
    server.closeAllConnections();
    server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function child(): Promise<void> {
  // Over HTTP first, on a fresh heap, as the tail bench's server runs: the in-process run grows the
  // heap's limits, after which a few seconds of load meet no Mark-Compact at all.
  const rows: [string, Figures][] = [];
  if (wrkMissing() === undefined) {
    const token = tokenOf();
    rows.push(['emulator over node:http, wrk', await overHttp(toNodeListener(emulator()), token)]);
    rows.push(['bare node:http, wrk', await overHttp(bare, token)]);
  }
  rows.push(['handler core, in process', await inProcess()]);
  process.send?.(rows);
}

if (process.env[CHILD] === '1') await child();

export default async function (): Promise<void> {
  const missing = wrkMissing();
  if (missing !== undefined) console.log(`${missing} (the in-process figure is still measured)`);
  const proc = fork(new URL(import.meta.url), [], {
    env: { ...process.env, [CHILD]: '1' },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const rows = await new Promise<[string, Figures][]>((resolve, reject) => {
    proc.once('message', (m) => resolve(m as [string, Figures][]));
    proc.once('error', reject);
    proc.once('exit', (code) => reject(new Error(`the alloc bench child exited with ${code}`)));
  });
  proc.kill();
  console.log(
    `allocation per license (token mode, ${IN_FLIGHT} in flight; in process ${LICENSES} licenses, over HTTP ${SECONDS} s of wrk at 256 connections)`,
  );
  console.log(
    '| measure | requests | allocated B/request | promoted B/request | old space direct B/request | scavenges /10k | Mark-Compacts /10k |',
  );
  console.log('|---|---:|---:|---:|---:|---:|---:|');
  for (const [name, f] of rows) {
    const per = (x: number) => (x / f.count).toFixed(0);
    const per10k = (x: number) => ((x * 10_000) / f.count).toFixed(1);
    console.log(
      `| ${[name, f.count, per(f.bytes), per(f.promoted), per(f.oldDirect), per10k(f.scavenges), per10k(f.markCompacts)].join(' | ')} |`,
    );
  }
}
