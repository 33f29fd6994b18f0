// 20,000 gateway callbacks and 20,000 token requests at concurrency 64 against site-kit's real
// handlers on node:http over loopback, the load from packages/site-kit/bench/load.ts. Every answer
// is decrypted or verified and checked against its request. The server runs in a child process, so
// its RSS is its own; its young generation is pinned to 2 x 32 MiB, because under sustained load V8
// otherwise grows it step by step (16 -> 32 -> 64 -> 128 MiB, measured here with the old generation
// flat at ~10 MiB live), which is sizing, not retention, and would hide a real leak in the noise.
import { fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { loadSite, type LoadFigures } from '../reliability/support/load-site.ts';
import type { ServerMemory } from '../reliability/support/load-server-process.ts';
import { goal } from '../../scripts/bench-goal.ts';

const COUNT = 20_000;
const WARMUP = 2_000;
const CONCURRENCY = 64;
const SERVER_FLAGS = ['--expose-gc', '--min-semi-space-size=32', '--max-semi-space-size=32'];

const mib = (bytes: number) => (bytes / 2 ** 20).toFixed(1);

function memoryOf(server: ChildProcess): Promise<ServerMemory> {
  return new Promise((resolve) => {
    server.once('message', (m) => resolve(m as ServerMemory));
    server.send('memory');
  });
}

export default async function (): Promise<void> {
  const entry = fileURLToPath(
    new URL('../reliability/support/load-server-process.ts', import.meta.url),
  );
  const server = fork(entry, [], {
    execArgv: SERVER_FLAGS,
    stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
  });
  try {
    const [line] = (await once(server.stdout!, 'data')) as [Buffer];
    const port = Number(line.toString().trim());
    const warm = [
      await loadSite(port, 'gateway', { count: WARMUP, concurrency: CONCURRENCY }),
      await loadSite(port, 'token', { count: WARMUP, concurrency: CONCURRENCY }),
    ];
    const before = await memoryOf(server);
    const runs: LoadFigures[] = [];
    for (const kind of ['gateway', 'token'] as const) {
      runs.push(
        await loadSite(port, kind, { count: COUNT, concurrency: CONCURRENCY, first: WARMUP }),
      );
    }
    const after = await memoryOf(server);
    const growth = (after.rss - before.rss) / before.rss;
    console.log(
      `${COUNT} requests of each kind at concurrency ${CONCURRENCY}, keep-alive, loopback, after ${WARMUP} warm-up requests of each kind; server in a child process (${SERVER_FLAGS.slice(1).join(' ')}); every answer checked`,
    );
    console.log(
      '| endpoint | requests | errors | checked | wrong | req/s | p50 ms | p99 ms | max ms |',
    );
    console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|');
    for (const f of runs) {
      const cells = [
        f.kind === 'gateway' ? 'gateway callback' : 'token endpoint',
        String(f.requests),
        String(f.errors),
        String(f.checked),
        String(f.wrong),
        f.rps.toFixed(0),
        f.p50.toFixed(2),
        f.p99.toFixed(2),
        f.max.toFixed(1),
      ];
      console.log(`| ${cells.join(' | ')} |`);
    }
    const problems = [...warm, ...runs].flatMap((f) => f.problems);
    console.log(
      goal(problems.length === 0, 'every answer right, no errors', 'reliability load') +
        (problems.length > 0 ? `: ${problems.join('; ')}` : ''),
    );
    console.log(
      `server RSS after warm-up ${mib(before.rss)} MiB, after the run ${mib(after.rss)} MiB: ${growth >= 0 ? '+' : ''}${(growth * 100).toFixed(1)} % (${goal(Math.abs(growth) <= 0.1, 'within 10 %', 'reliability load, server RSS growth')}); old generation live ${mib(before.oldUsed)} -> ${mib(after.oldUsed)} MiB, young generation ${mib(before.newSpace)} -> ${mib(after.newSpace)} MiB`,
    );
  } finally {
    server.disconnect();
    if (server.exitCode === null) await once(server, 'exit');
  }
}
