// The HTTP load harness of `pnpm bench`: servers in a child process of their own, the load from wrk
// (C, one thread) in another, and the server process's own CPU time and event-loop use read around
// every measured run. A load generator written in JS costs more per request than the servers it
// measures (the old one: 73-110 µs against the bare server's ~20), so every server ran at the
// generator's pace and the ratios meant nothing; wrk costs a few µs per request, and each run says
// what it cost, so the reader can check. See packages/site-kit/bench/README.md.
import { execFileSync, fork, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { goal } from './bench-goal.ts';

export type Listener = (req: IncomingMessage, res: ServerResponse) => unknown;

/** The event loop of a saturated server is never idle: below this it waited for the load. */
export const SATURATED_ELU = 0.9;

/** Whether wrk can be run, and the message to print when it cannot. */
export function wrkMissing(): string | undefined {
  try {
    execFileSync('wrk', ['--version'], { stdio: 'ignore' });
    return undefined;
  } catch (error) {
    // wrk --version exits 1 after printing its version; only a missing binary throws ENOENT.
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') return undefined;
    return 'wrk, the load generator of the HTTP benchmarks, is not installed: `sudo apt-get install -y wrk` (Debian/Ubuntu) or `brew install wrk` (macOS), then run `pnpm bench` again. The HTTP benchmarks were skipped.';
  }
}

// ---- the server side: runs in the child ----

/** Serves `listeners` on ephemeral loopback ports and answers the parent's marks; child only. */
export async function serveInChild(listeners: Record<string, Listener>): Promise<void> {
  const ports: Record<string, number> = {};
  for (const [name, listener] of Object.entries(listeners)) {
    const server = createServer(listener);
    server.keepAliveTimeout = 60_000;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    ports[name] = (server.address() as AddressInfo).port;
  }
  process.on('message', () => {
    const { user, system } = process.cpuUsage();
    process.send?.({ cpuMicros: user + system, elu: performance.eventLoopUtilization() });
  });
  process.send?.({ ports });
}

// ---- the parent side ----

interface Mark {
  cpuMicros: number;
  elu: { idle: number; active: number; utilization: number };
}

export interface ServerProcess {
  ports: Record<string, number>;
  mark(): Promise<Mark>;
  close(): void;
}

/** Forks `module` with `env` set (the module then calls serveInChild) and waits for its ports. */
export async function forkServers(
  module: URL,
  env: Record<string, string>,
  execArgv: string[] = [],
): Promise<ServerProcess> {
  const child: ChildProcess = fork(module, [], {
    env: { ...process.env, ...env },
    execArgv: [...process.execArgv, ...execArgv],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const ports = await new Promise<Record<string, number>>((resolve, reject) => {
    child.once('message', (m) => resolve((m as { ports: Record<string, number> }).ports));
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`the server process exited with ${code}`)));
  });
  return {
    ports,
    mark: () =>
      new Promise((resolve) => {
        child.once('message', (m) => resolve(m as Mark));
        child.send('mark');
      }),
    close: () => child.kill(),
  };
}

export interface LoadSpec {
  port: number;
  path: string;
  body: string;
  contentType: string;
  headers?: Record<string, string>;
  connections: number;
  seconds: number;
}

export interface RunFigures {
  rps: number;
  p50Ms: number;
  p99Ms: number;
  /** Server process CPU (all its threads) per answered request. */
  serverCpuMicros: number;
  /** wrk's own CPU per request, user + system: it must stay far below the server's. */
  loadCpuMicros: number;
  /** wrk's user-space CPU per request; its system time is mostly the loopback TCP stack. */
  loadUserMicros: number;
  /** Event-loop utilisation of the server over the run: >= SATURATED_ELU means it was the bottleneck. */
  elu: number;
  /**
   * The server's CPU time over the run's wall time: near 1 for a saturated server that had a core
   * to itself; less when other processes of the machine took turns on its core.
   */
  onCpu: number;
  /** Socket errors and non-2xx answers. */
  failures: number;
}

const dir = mkdtempSync(join(tmpdir(), 'multidrm-bench-'));
process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
let scripts = 0;

function luaScript(spec: LoadSpec): string {
  const path = join(dir, `load-${scripts++}.lua`);
  const headers = { 'Content-Type': spec.contentType, ...spec.headers };
  // Long brackets hold the body as it is; the bodies here are base64 and JSON.
  const lines = [
    'wrk.method = "POST"',
    `wrk.body = [==[${spec.body}]==]`,
    ...Object.entries(headers).map(([k, v]) => `wrk.headers[ [==[${k}]==] ] = [==[${v}]==]`),
    'done = function(s, latency, requests)',
    '  local e = s.errors',
    '  io.write(string.format("\\nRESULT %d %d %d %d %d\\n", s.requests, s.duration,',
    '    e.connect + e.read + e.write + e.timeout + e.status,',
    '    latency:percentile(50), latency:percentile(99)))',
    'end',
  ];
  writeFileSync(path, lines.join('\n'));
  return path;
}

/** Runs wrk once; resolves its figures and its own CPU time (bash's `times` of its children). */
function wrk(
  spec: LoadSpec,
  script: string,
): Promise<{ out: string; cpuMicros: number; userMicros: number }> {
  const args = [
    '-t1',
    `-c${spec.connections}`,
    `-d${spec.seconds}s`,
    '--timeout',
    '10s',
    '-s',
    script,
    `http://127.0.0.1:${spec.port}${spec.path}`,
  ];
  // `times` prints the CPU time of the shell's finished children (wrk) on its second line.
  const shell = spawn('bash', ['-c', 'wrk "$@"; status=$?; times; exit $status', 'wrk', ...args], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  shell.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  return new Promise((resolve, reject) => {
    shell.once('error', reject);
    shell.once('exit', (code) => {
      if (code !== 0) return reject(new Error(`wrk exited with ${code}: ${out}`));
      const times = out.trim().split('\n').at(-1) ?? '';
      const seconds = [...times.matchAll(/(\d+)m([\d.]+)s/g)].map(
        (m) => Number(m[1]) * 60 + Number(m[2]),
      );
      resolve({
        out,
        cpuMicros: ((seconds[0] ?? NaN) + (seconds[1] ?? NaN)) * 1e6,
        userMicros: (seconds[0] ?? NaN) * 1e6,
      });
    });
  });
}

/** A warm-up run (unmeasured) then a measured one, with the server's CPU and ELU read around it. */
export async function measure(
  server: ServerProcess,
  spec: LoadSpec,
  warmupSeconds = 1,
): Promise<RunFigures> {
  const script = luaScript(spec);
  await wrk({ ...spec, seconds: warmupSeconds }, script);
  const before = await server.mark();
  const { out, cpuMicros, userMicros } = await wrk(spec, script);
  const after = await server.mark();
  const result = /RESULT (\d+) (\d+) (\d+) (\d+) (\d+)/.exec(out);
  if (result === null) throw new Error(`wrk printed no result: ${out}`);
  const [requests, durationMicros, failures, p50, p99] = result.slice(1).map(Number) as [
    number,
    number,
    number,
    number,
    number,
  ];
  const active = after.elu.active - before.elu.active;
  const idle = after.elu.idle - before.elu.idle;
  return {
    rps: requests / (durationMicros / 1e6),
    p50Ms: p50 / 1000,
    p99Ms: p99 / 1000,
    serverCpuMicros: (after.cpuMicros - before.cpuMicros) / requests,
    loadCpuMicros: cpuMicros / requests,
    loadUserMicros: userMicros / requests,
    elu: active / (active + idle),
    onCpu: (after.cpuMicros - before.cpuMicros) / durationMicros,
    failures,
  };
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

/** The table row of one server over its rounds: medians, and its throughput ratio to `reference`. */
export function figures(runs: readonly RunFigures[]): {
  rps: number;
  p50: number;
  p99: number;
  cpu: number;
  load: number;
  loadUser: number;
  elu: number;
  onCpu: number;
  failures: number;
} {
  return {
    rps: median(runs.map((r) => r.rps)),
    p50: median(runs.map((r) => r.p50Ms)),
    p99: median(runs.map((r) => r.p99Ms)),
    cpu: median(runs.map((r) => r.serverCpuMicros)),
    load: median(runs.map((r) => r.loadCpuMicros)),
    loadUser: median(runs.map((r) => r.loadUserMicros)),
    elu: median(runs.map((r) => r.elu)),
    onCpu: median(runs.map((r) => r.onCpu)),
    failures: runs.reduce((n, r) => n + r.failures, 0),
  };
}

/** Below this share of a core, a saturated server's requests/s measured the machine's other work. */
export const OWN_CORE = 0.8;

/**
 * The median of per-round throughput ratios; or, when the machine was so busy that the servers did
 * not get a core of their own (on-CPU < OWN_CORE), the ratio of CPU time per request (reference's /
 * this one's), which is what one core could serve; or the reason there is none: a ratio to a
 * reference that was not saturated measures the load generator, not the servers.
 */
export function ratio(
  runs: readonly RunFigures[],
  reference: readonly RunFigures[],
): { value: number; basis: 'req/s' | 'CPU' } | { refused: string } {
  const unsaturated = reference.filter((r) => r.elu < SATURATED_ELU).length;
  if (unsaturated > reference.length / 2) {
    return {
      refused: `no ratio: the reference was not saturated (event loop ${(figures(reference).elu * 100).toFixed(0)} % busy in most rounds, < ${SATURATED_ELU * 100} %)`,
    };
  }
  const onCpu = Math.min(figures(runs).onCpu, figures(reference).onCpu);
  if (onCpu < OWN_CORE) {
    return { value: figures(reference).cpu / figures(runs).cpu, basis: 'CPU' };
  }
  return {
    value: median(runs.map((r, i) => r.rps / (reference[i]?.rps ?? Number.NaN))),
    basis: 'req/s',
  };
}

/** The table cells both HTTP benches print for a server's medians, after its name. */
export function figureCells(f: ReturnType<typeof figures>): string[] {
  return [
    f.rps.toFixed(0),
    f.p50.toFixed(2),
    f.p99.toFixed(2),
    f.cpu.toFixed(1),
    `${f.load.toFixed(1)} (${f.loadUser.toFixed(1)})`,
    `${(f.elu * 100).toFixed(0)} % / ${(f.onCpu * 100).toFixed(0)} %`,
  ];
}

/**
 * The goal cell of a ratio to a reference (`goal` records it): met when the ratio is at least
 * `min`. `throughput` and `cpu` word the goal for each basis; without a ratio (the reference was
 * not saturated), the throughput goal is missed as not measurable.
 */
export function ratioGoal(
  r: ReturnType<typeof ratio>,
  min: number,
  wording: { throughput: string; cpu: string },
  what: string,
): string {
  if (!('value' in r)) {
    return goal(false, `${wording.throughput} (not measurable: reference not saturated)`, what);
  }
  return goal(r.value >= min, r.basis === 'req/s' ? wording.throughput : wording.cpu, what);
}

/** The bare reference: reads the body, answers a short text. The least any endpoint does. */
export function bare(req: IncomingMessage, res: ServerResponse): void {
  req.on('data', () => undefined);
  req.on('end', () => {
    res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8', 'content-length': '2' });
    res.end('ok');
  });
}
