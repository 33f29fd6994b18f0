// Licenses/s, latency and server CPU per license of the emulator's HTTP server, token mode and
// gateway mode, beside bare node:http servers doing the least the same exchange needs, all in one
// run: sites load-test their integration against the emulator, so it must not be the bottleneck.
// The emulator runs in a child process, the site's gateway (and the bare upstream) in another, the
// load from wrk in a third (scripts/bench-load.ts); interleaved rounds, ratios within a round,
// medians; a ratio only when its bare reference was saturated. See packages/site-kit/bench/README.md.
import { request, Agent, type IncomingMessage, type ServerResponse } from 'node:http';
import {
  createCustomData,
  createGatewayHandler,
  createTokenIssuer,
  createWriteBatch,
  toNodeListener as siteListener,
} from '@multidrm/site-kit';
import { createEmulatorHandler } from '../src/handler.ts';
import { toNodeListener } from '../src/http/node-adapter.ts';
import { goal } from '../../../scripts/bench-goal.ts';
import {
  bare,
  figureCells,
  figures,
  forkServers,
  measure,
  ratio,
  ratioGoal,
  OWN_CORE,
  SATURATED_ELU,
  serveInChild,
  wrkMissing,
  type Listener,
  type RunFigures,
} from '../../../scripts/bench-load.ts';
import { BODY, KEY, KID, PATH, SITE } from './license-fixture.ts';

const CONNECTIONS = 128;
const SECONDS = Number(process.env['BENCH_SECONDS'] ?? 2);
const ROUNDS = Number(process.env['BENCH_ROUNDS'] ?? 5);
const HEADER = 'x-drm-custom-data';

const UPSTREAM = 'MULTIDRM_BENCH_EMULATOR_UPSTREAM';
const SERVER = 'MULTIDRM_BENCH_EMULATOR_SERVER';

// The site: a gateway made with site-kit, and a bare server for the reference's callback.
if (process.env[UPSTREAM] === '1') {
  await serveInChild({
    bare,
    gateway: siteListener(
      createGatewayHandler({
        siteKey: SITE.siteKey,
        authorize: () => ({ allow: true, playback_policy: { limit: false } }),
      }),
    ),
  });
}

/** The least a gateway-mode license server does: one keep-alive HTTP call upstream per request. */
function bareWithCallback(port: number): Listener {
  const agent = new Agent({ keepAlive: true, maxSockets: CONNECTIONS });
  return (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const call = request(
        {
          host: '127.0.0.1',
          port,
          method: 'POST',
          agent,
          headers: { 'content-length': body.length },
        },
        (answer) => {
          answer.resume();
          answer.on('end', () => {
            res.writeHead(200, {
              'content-type': 'text/plain; charset=utf-8',
              'content-length': '2',
            });
            res.end('ok');
          });
        },
      );
      call.end(body);
    });
  };
}

/**
 * The bare server, writing its answers in batches as the emulator's server does: not a goal's
 * reference (the goal is against plain node:http), printed so that what the batching alone gives
 * can be told from what the emulator's own work costs.
 */
function bareBatched(): Listener {
  const batch = createWriteBatch();
  return (req: IncomingMessage, res: ServerResponse) => {
    req.on('data', () => undefined);
    req.on('end', () => {
      void batch(() => {
        res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8', 'content-length': '2' });
        res.end('ok');
      });
    });
  };
}

if (process.env[SERVER] !== undefined) {
  const [barePort, gatewayPort] = process.env[SERVER].split(',').map(Number);
  const config = {
    sites: [{ ...SITE, gatewayUrl: `http://127.0.0.1:${gatewayPort}/` }],
    keys: { movie: { kid: KID, key: KEY } },
  };
  await serveInChild({
    bare,
    bareBatched: bareBatched(),
    bareWithCallback: bareWithCallback(barePort as number),
    emulator: toNodeListener(createEmulatorHandler(config), (error) => {
      console.error(`emulator internal error: ${String(error)}`);
    }),
  });
}

type Kind = 'bare' | 'bareBatched' | 'token' | 'bareWithCallback' | 'gateway';
const NAMES: Record<Kind, string> = {
  bare: 'bare node:http (reads the body, answers "ok")',
  bareBatched: 'bare node:http, answers written in batches as the emulator writes them (no goal)',
  token: 'emulator, token mode',
  bareWithCallback: 'bare node:http + one keep-alive HTTP call upstream',
  gateway: 'emulator, gateway mode (calls the site gateway)',
};

async function checkLicense(port: number, value: string): Promise<void> {
  const response = await fetch(`http://127.0.0.1:${port}${PATH}`, {
    method: 'POST',
    headers: { [HEADER]: value },
    body: BODY,
  });
  const answer = (await response.json()) as { keys?: unknown; errorCode?: string };
  if (answer.keys === undefined)
    throw new Error(`the emulator refused: ${answer.errorCode ?? response.status}`);
}

export default async function (): Promise<void> {
  const missing = wrkMissing();
  if (missing !== undefined) {
    console.log(missing);
    goal(false, 'wrk installed', 'emulator HTTP benchmark');
    return;
  }
  const upstream = await forkServers(new URL(import.meta.url), { [UPSTREAM]: '1' });
  let server: Awaited<ReturnType<typeof forkServers>> | undefined;
  const runs: Record<Kind, RunFigures[]> = {
    bare: [],
    bareBatched: [],
    token: [],
    bareWithCallback: [],
    gateway: [],
  };
  try {
    server = await forkServers(new URL(import.meta.url), {
      [SERVER]: `${upstream.ports['bare']},${upstream.ports['gateway']}`,
    });
    const ports = server.ports as Record<
      'bare' | 'bareBatched' | 'bareWithCallback' | 'emulator',
      number
    >;
    // A token valid for the whole run (600 s), and custom data for the gateway mode.
    const token = createTokenIssuer(SITE).issue({
      cid: 'movie',
      userId: 'user-1',
      drmType: 'Widevine',
    });
    const customData = createCustomData({
      ...SITE,
      drmType: 'Widevine',
      userId: 'user-1',
      cid: 'movie',
    });
    await checkLicense(ports.emulator, token);
    await checkLicense(ports.emulator, customData);
    const spec = (port: number, value?: string) => ({
      port,
      path: PATH,
      body: BODY,
      contentType: 'application/json',
      ...(value === undefined ? {} : { headers: { [HEADER]: value } }),
      connections: CONNECTIONS,
      seconds: SECONDS,
    });
    for (let round = 0; round < ROUNDS; round++) {
      runs.bare.push(await measure(server, spec(ports.bare)));
      runs.bareBatched.push(await measure(server, spec(ports.bareBatched)));
      runs.token.push(await measure(server, spec(ports.emulator, token)));
      runs.bareWithCallback.push(await measure(server, spec(ports.bareWithCallback)));
      runs.gateway.push(await measure(server, spec(ports.emulator, customData)));
    }
  } finally {
    server?.close();
    upstream.close();
  }
  console.log(
    `loopback, keep-alive, wrk -t1 -c${CONNECTIONS}; ${ROUNDS} interleaved rounds of ${SECONDS} s per server after 1 s warm-up; the emulator (and the bare servers) in one child process, the site gateway and bare upstream in another, wrk in a third; server CPU is the first child's; medians`,
  );
  console.log(
    '| server | licenses/s | p50 ms | p99 ms | server CPU µs/req | wrk CPU µs/req (user) | event loop busy / on-CPU | vs its bare reference | failures | goal |',
  );
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|---|');
  const references: Partial<Record<Kind, Kind>> = { token: 'bare', gateway: 'bareWithCallback' };
  for (const kind of ['bare', 'bareBatched', 'token', 'bareWithCallback', 'gateway'] as const) {
    const f = figures(runs[kind]);
    const reference = references[kind];
    const r = reference === undefined ? undefined : ratio(runs[kind], runs[reference]);
    let goalCell = '';
    if (reference !== undefined && r !== undefined) {
      const what = `${NAMES[kind]} vs ${NAMES[reference]}`;
      goalCell = ratioGoal(
        r,
        0.35,
        {
          throughput: 'licenses/s >= 0.35x its bare reference',
          cpu: 'CPU per license <= 1/0.35 of its bare reference (the machine was too busy for req/s)',
        },
        what,
      );
    }
    if (kind !== 'bare' && f.failures > 0)
      goalCell += ` ${goal(false, 'no failures', NAMES[kind])}`;
    console.log(
      `| ${[
        NAMES[kind],
        ...figureCells(f),
        r === undefined
          ? ''
          : !('value' in r)
            ? r.refused
            : r.basis === 'req/s'
              ? `${r.value.toFixed(2)}x`
              : `CPU ${r.value.toFixed(2)}x (busy machine: req/s not comparable)`,
        String(f.failures),
        goalCell,
      ].join(' | ')} |`,
    );
  }
  const batched = ratio(runs.token, runs.bareBatched);
  if ('value' in batched) {
    console.log(
      `Token mode against the bare server that also writes in batches: ${batched.value.toFixed(2)}x (${batched.basis}); the goal is against plain node:http, which writes each answer at once.`,
    );
  }
  console.log(
    `A ratio is printed only where the reference's event loop was busy >= ${SATURATED_ELU * 100} % (saturated); where a server had less than ${OWN_CORE * 100} % of a core (on-CPU), it is of CPU per license instead. The gateway mode's server CPU leaves out the site gateway's, which runs in the other child.`,
  );
}
