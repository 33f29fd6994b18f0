// Tokens per second in each runtime of the runtime table, beside Node in the same run: the same
// workload (test/runtimes/harness/token-rate.ts: v2 tokens, a new policy object each, or one object
// again), through the issuer a site uses there: the synchronous one on node:crypto in Node, Bun and
// Deno, the async one on Web Crypto in workerd. Node, Bun and Deno time themselves (best of 5 rounds
// after a warm-up); workerd's clock stands still while a Worker computes, so its rounds are timed
// from here, one request each, less the time of an empty request.
import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { startWorkerd } from '../../../test/runtimes/workerd.ts';
import { fmt, table } from './measure.ts';

const run = promisify(execFile);
const root = join(import.meta.dirname, '../../..');
const harness = join(root, 'test/runtimes/harness');
const require = createRequire(join(root, 'test/package.json'));
const bun = join(require.resolve('bun-runtime/package.json'), '../bin/bun.exe');
const deno = join(require.resolve('deno/package.json'), '../deno');
const N = 20_000;
const ROUNDS = 5;
const WORKLOADS = ['fresh', 'same'] as const;
type Workload = (typeof WORKLOADS)[number];

async function selfTimed(command: string, args: string[], mode: string, workload: Workload) {
  const { stdout } = await run(
    command,
    [...args, join(harness, 'token-rate-main.ts'), mode, workload, String(N), String(ROUNDS)],
    { cwd: root },
  );
  return (JSON.parse(stdout) as { tokensPerSecond: number }).tokensPerSecond;
}

export default async function bench(): Promise<void> {
  const rates: Record<string, Record<Workload, number>> = {};
  const runtimes: [string, (w: Workload) => Promise<number>][] = [
    ['Node, node:crypto (createTokenIssuer)', (w) => selfTimed(process.execPath, [], 'sync', w)],
    [
      'Node, async API (createTokenIssuerAsync)',
      (w) => selfTimed(process.execPath, [], 'async', w),
    ],
    ['Bun, node:crypto (createTokenIssuer)', (w) => selfTimed(bun, [], 'sync', w)],
    ['Deno, node:crypto (createTokenIssuer)', (w) => selfTimed(deno, ['run'], 'sync', w)],
  ];
  for (const [name, measure] of runtimes) {
    rates[name] = { fresh: await measure('fresh'), same: await measure('same') };
  }
  const workerd = await startWorkerd(join(harness, 'token-rate-worker.ts'), {});
  try {
    const timed = async (workload: Workload, n: number) => {
      const start = performance.now();
      await (await fetch(`${workerd.url}/?workload=${workload}&n=${n}`)).text();
      return performance.now() - start;
    };
    const workerdRates = { fresh: 0, same: 0 };
    for (const workload of WORKLOADS) {
      await timed(workload, N / 4);
      for (let round = 0; round < ROUNDS; round++) {
        const empty = await timed(workload, 0);
        const ms = (await timed(workload, N)) - empty;
        workerdRates[workload] = Math.max(workerdRates[workload], (N / ms) * 1000);
      }
    }
    rates['workerd, Web Crypto (createTokenIssuerAsync)'] = workerdRates;
  } finally {
    await workerd.stop();
  }
  const node = rates['Node, node:crypto (createTokenIssuer)'] as Record<Workload, number>;
  const rows = [
    ['runtime', 'new policy: tokens/s', 'vs Node', 'same policy object: tokens/s', 'vs Node'],
  ];
  for (const [name, rate] of Object.entries(rates)) {
    rows.push([
      name,
      fmt(rate.fresh),
      `${(rate.fresh / node.fresh).toFixed(2)}x`,
      fmt(rate.same),
      `${(rate.same / node.same).toFixed(2)}x`,
    ]);
  }
  table(rows);
}
