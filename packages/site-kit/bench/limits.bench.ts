// What the shared state costs. (1) The latency one limits decision adds (stream + device limit and
// the two ban reads), over memory and over a loopback Redis, sequential calls in this process.
// (2) Token endpoint throughput with rate limiting off, on over memory and on over Redis (per
// address and per user, budgets no load reaches), as ratios to "off" taken within each round: the
// servers in a child process, the load from wrk in another, interleaved rounds (bench-load.ts, as
// the http bench). Methodology: README.md.
import { createTokenHandler, toNodeListener } from '../src/index.ts';
import { createLicenseLimits, createMemoryStore, createRateLimit } from '../src/limits.ts';
import { createRedisStore } from '../src/redis.ts';
import type { SharedStore } from '../src/store/store.ts';
import { startRedis } from '../test/support/redis-server.ts';
import { goal } from '../../../scripts/bench-goal.ts';
import {
  figureCells,
  figures,
  forkServers,
  measure,
  median,
  ratio,
  ratioGoal,
  serveInChild,
  wrkMissing,
  type Listener,
  type RunFigures,
} from '../../../scripts/bench-load.ts';

const SITE = {
  siteId: 'BENCH',
  siteKey: 'lU5D8s3PWoLls3PWFWkClULlFWk5D8oC',
  accessKey: 'LT2FVJDp2Xr018zf4Di6lzvNOv3DKP20',
};
const CONNECTIONS = 128;
const SECONDS = Number(process.env['BENCH_SECONDS'] ?? 2);
const ROUNDS = Number(process.env['BENCH_ROUNDS'] ?? 5);
const DECISIONS = 5_000;
const TOKEN_BODY = JSON.stringify({ cid: 'movie-1', drm_type: 'Widevine' });
// Budgets no run reaches: every request is counted, none refused.
const UNREACHED = { points: 1_000_000_000, seconds: 3600 };

const tokenHandler = (rateLimit?: ReturnType<typeof createRateLimit>): Listener =>
  toNodeListener(
    createTokenHandler({
      ...SITE,
      authorize: () => ({
        allow: true,
        userId: 'user-1',
        policy: { playback_policy: { limit: true, duration: 600 } },
      }),
      ...(rateLimit === undefined ? {} : { rateLimit }),
    }),
  );

const ROLE = 'MULTIDRM_BENCH_LIMITS_SERVER';
if (process.env[ROLE] === '1') {
  const store = createRedisStore({ url: process.env['REDIS_URL']! });
  await store.ready();
  const both = { perAddress: UNREACHED, perUser: UNREACHED };
  await serveInChild({
    off: tokenHandler(),
    memory: tokenHandler(createRateLimit(both)),
    redis: tokenHandler(createRateLimit({ ...both, store })),
  });
}

type Kind = 'off' | 'memory' | 'redis';
const KINDS: Kind[] = ['off', 'memory', 'redis'];
const NAMES: Record<Kind, string> = {
  off: 'token handler, no rate limit',
  memory: 'token handler, rate limit over memory',
  redis: 'token handler, rate limit over loopback Redis',
};

/** Microseconds per decision, sequential, after a warm-up of the same work. */
async function decisionLatency(store: SharedStore): Promise<{ p50: number; p99: number }> {
  const limits = createLicenseLimits({
    store,
    keyPrefix: `bench:${store.kind}:`,
    maxStreams: 3,
    maxDevices: 5,
    evict: 'oldest',
  });
  const ask = (i: number) => ({
    userId: `user-${i % 1000}`,
    deviceId: `device-${i % 7}`,
    cid: `movie-${i % 3}`,
  });
  for (let i = 0; i < 500; i++) await limits.check(ask(i));
  const times: number[] = [];
  for (let i = 0; i < DECISIONS; i++) {
    const started = performance.now();
    await limits.check(ask(i));
    times.push((performance.now() - started) * 1000);
  }
  times.sort((a, b) => a - b);
  return { p50: median(times), p99: times[Math.floor(times.length * 0.99)] as number };
}

export default async function (): Promise<void> {
  const redis = await startRedis();
  try {
    const store = createRedisStore({ url: redis.url });
    await store.ready();
    const memory = await decisionLatency(createMemoryStore());
    const onRedis = await decisionLatency(store);
    await store.close();
    console.log(
      `one limits decision (2 ban reads, device + stream admit; ${DECISIONS} sequential calls after 500 warm-up), µs`,
    );
    console.log('| store | p50 µs | p99 µs | added by Redis p50 / p99 µs | goal |');
    console.log('|---|---:|---:|---:|---|');
    console.log(`| memory | ${memory.p50.toFixed(0)} | ${memory.p99.toFixed(0)} | | |`);
    const added = { p50: onRedis.p50 - memory.p50, p99: onRedis.p99 - memory.p99 };
    console.log(
      `| loopback Redis | ${onRedis.p50.toFixed(0)} | ${onRedis.p99.toFixed(0)} | ${added.p50.toFixed(0)} / ${added.p99.toFixed(0)} | ${goal(onRedis.p50 < 500 && onRedis.p99 < 5000, 'p50 < 0.5 ms and p99 < 5 ms on loopback', 'limits decision over Redis')} |`,
    );

    const missing = wrkMissing();
    if (missing !== undefined) {
      console.log(missing);
      goal(false, 'wrk installed', 'rate-limit throughput');
      return;
    }
    const server = await forkServers(new URL(import.meta.url), {
      [ROLE]: '1',
      REDIS_URL: redis.url,
    });
    const runs: Record<Kind, RunFigures[]> = { off: [], memory: [], redis: [] };
    try {
      for (let round = 0; round < ROUNDS; round++) {
        for (const kind of KINDS) {
          runs[kind].push(
            await measure(server, {
              port: server.ports[kind] as number,
              path: '/token',
              body: TOKEN_BODY,
              contentType: 'application/json',
              connections: CONNECTIONS,
              seconds: SECONDS,
            }),
          );
        }
      }
    } finally {
      server.close();
    }
    console.log(
      `\ntoken endpoint, rate limit per address and per user (budgets never reached); wrk -t1 -c${CONNECTIONS}, ${ROUNDS} interleaved rounds of ${SECONDS} s; medians`,
    );
    console.log(
      '| server | req/s | p50 ms | p99 ms | server CPU µs/req | wrk CPU µs/req (user) | event loop busy / on-CPU | vs off | failures | goal |',
    );
    console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|---|');
    const minimum: Record<Kind, number> = { off: 1, memory: 0.8, redis: 0.5 };
    for (const kind of KINDS) {
      const f = figures(runs[kind]);
      let vsOff = '';
      let goalCell = '';
      if (kind !== 'off') {
        const r = ratio(runs[kind], runs.off);
        vsOff =
          'value' in r ? `${r.value.toFixed(2)}x${r.basis === 'CPU' ? ' (CPU)' : ''}` : r.refused;
        goalCell = ratioGoal(
          r,
          minimum[kind],
          {
            throughput: `req/s >= ${minimum[kind]}x without a rate limit`,
            cpu: `CPU per request within 1/${minimum[kind]} of without a rate limit`,
          },
          NAMES[kind],
        );
      }
      if (f.failures > 0) goalCell += ` ${goal(false, 'no failures', NAMES[kind])}`;
      console.log(
        `| ${[NAMES[kind], ...figureCells(f), vsOff, String(f.failures), goalCell].join(' | ')} |`,
      );
    }
  } finally {
    await redis.stop();
  }
}
