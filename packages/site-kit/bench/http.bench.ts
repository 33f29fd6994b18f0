// Requests/s, latency and server CPU per request of the gateway and token handlers on node:http over
// loopback, each beside a hand-written server doing the same crypto without validation, events or
// web objects, and a bare node:http server, all in one run. The hand-written servers write their
// answers in batches as toNodeListener does (createWriteBatch), so that their ratio is of the
// handlers' own work; the bare server writes each answer at once, as a plain node:http server does. The servers run in a child process of
// their own and the load comes from wrk in another (scripts/bench-load.ts). Servers are measured in
// interleaved rounds and each ratio is taken within its round, so load from other processes on the
// machine hits the reference and the candidate alike; medians of rounds. A ratio is printed only when
// its reference was saturated (its event loop never waited for the load). Methodology: README.md.
import { createCipheriv, createSecretKey, hash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  createGatewayHandler,
  createTokenHandler,
  createWriteBatch,
  encodeGatewayRequest,
  toNodeListener,
} from '../src/index.ts';
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
import { handGatewayAnswer } from './hand-gateway.ts';

const SITE = {
  siteId: 'BENCH',
  siteKey: 'lU5D8s3PWoLls3PWFWkClULlFWk5D8oC',
  accessKey: 'LT2FVJDp2Xr018zf4Di6lzvNOv3DKP20',
};
// Enough requests in flight that the server still has work while wrk waits for a core of this shared
// machine (at 48, the bare server's event loop sat idle 20 % of the time).
const CONNECTIONS = 128;
const SECONDS = Number(process.env['BENCH_SECONDS'] ?? 2);
const ROUNDS = Number(process.env['BENCH_ROUNDS'] ?? 5);

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
const FORM = 'application/x-www-form-urlencoded';

const key = createSecretKey(Buffer.from(SITE.siteKey));
const IV = Buffer.from('0123456789abcdef');
const encrypt = (text: string) => {
  const c = createCipheriv('aes-256-cbc', key, IV);
  return Buffer.concat([c.update(text), c.final()]).toString('base64');
};
function readAll(req: IncomingMessage, then: (body: string) => void): void {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => then(Buffer.concat(chunks).toString()));
}
const batch = createWriteBatch();
function send(res: ServerResponse, status: number, body: string): void {
  void batch(() => {
    res.writeHead(status, {
      'content-type': 'text/plain',
      'content-length': Buffer.byteLength(body),
    });
    res.end(body);
  });
}

// Hand-written gateway (hand-gateway.ts): decrypt, answer the nonce with a fixed policy, encrypt.
const handAnswer = handGatewayAnswer(SITE.siteKey);
function handGateway(req: IncomingMessage, res: ServerResponse): void {
  readAll(req, (body) => send(res, 200, handAnswer(body)));
}

// Hand-written token endpoint: read {cid, drm_type}, encrypt the policy, hash, token JSON, base64.
function handToken(req: IncomingMessage, res: ServerResponse): void {
  readAll(req, (body) => {
    const { cid, drm_type } = JSON.parse(body) as { cid: string; drm_type: string };
    const token = encrypt(JSON.stringify({ playback_policy: { limit: true, duration: 600 } }));
    const timestamp = new Date().toISOString().slice(0, 19) + 'Z';
    const s = SITE.accessKey + drm_type + SITE.siteId + 'user-1' + cid + token + timestamp;
    const h = Buffer.from(hash('sha256', s, 'hex').toUpperCase()).toString('base64');
    const json = JSON.stringify({
      drm_type,
      site_id: SITE.siteId,
      user_id: 'user-1',
      cid,
      token,
      timestamp,
      hash: h,
    });
    send(res, 200, Buffer.from(json).toString('base64'));
  });
}

const SERVERS = {
  bare: { listener: bare, path: '/', body: GATEWAY_BODY, type: FORM },
  handGateway: { listener: handGateway, path: '/', body: GATEWAY_BODY, type: FORM },
  gateway: {
    listener: toNodeListener(
      createGatewayHandler({
        siteKey: SITE.siteKey,
        authorize: () => ({ allow: true, playback_policy: { limit: true, duration: 86400 } }),
      }),
    ),
    path: '/gateway',
    body: GATEWAY_BODY,
    type: FORM,
  },
  handToken: { listener: handToken, path: '/', body: TOKEN_BODY, type: 'application/json' },
  token: {
    listener: toNodeListener(
      createTokenHandler({
        ...SITE,
        authorize: () => ({
          allow: true,
          userId: 'user-1',
          policy: { playback_policy: { limit: true, duration: 600 } },
        }),
      }),
    ),
    path: '/token',
    body: TOKEN_BODY,
    type: 'application/json',
  },
} satisfies Record<string, { listener: Listener; path: string; body: string; type: string }>;
type Kind = keyof typeof SERVERS;
const KINDS = Object.keys(SERVERS) as Kind[];

const ROLE = 'MULTIDRM_BENCH_HTTP_SERVER';
if (process.env[ROLE] === '1') {
  await serveInChild(Object.fromEntries(KINDS.map((k) => [k, SERVERS[k].listener])));
}

const NAMES: Record<Kind, string> = {
  bare: 'bare node:http (reads the body, answers "ok")',
  handGateway: 'hand-written gateway (same crypto, no checks)',
  gateway: 'site-kit gateway handler',
  handToken: 'hand-written token endpoint (same crypto, no checks)',
  token: 'site-kit token handler',
};

export default async function (): Promise<void> {
  const missing = wrkMissing();
  if (missing !== undefined) {
    console.log(missing);
    goal(false, 'wrk installed', 'HTTP benchmarks');
    return;
  }
  const server = await forkServers(new URL(import.meta.url), { [ROLE]: '1' });
  const runs = Object.fromEntries(KINDS.map((k) => [k, [] as RunFigures[]])) as Record<
    Kind,
    RunFigures[]
  >;
  try {
    for (let round = 0; round < ROUNDS; round++) {
      for (const kind of KINDS) {
        const { path, body, type } = SERVERS[kind];
        runs[kind].push(
          await measure(server, {
            port: server.ports[kind] as number,
            path,
            body,
            contentType: type,
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
    `loopback, keep-alive, wrk -t1 -c${CONNECTIONS}; ${ROUNDS} interleaved rounds of ${SECONDS} s per server after 1 s warm-up; servers in one child process, wrk in another; medians (ratios: median of per-round ratios)`,
  );
  console.log(
    '| server | req/s | p50 ms | p99 ms | server CPU µs/req | wrk CPU µs/req (user) | event loop busy / on-CPU | vs bare | vs reference | failures | goal |',
  );
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|');
  const references: Partial<Record<Kind, Kind>> = { gateway: 'handGateway', token: 'handToken' };
  for (const kind of KINDS) {
    const f = figures(runs[kind]);
    const vsBare = kind === 'bare' ? undefined : ratio(runs[kind], runs.bare);
    const reference = references[kind];
    const vsRef = reference === undefined ? undefined : ratio(runs[kind], runs[reference]);
    // Beside the throughput ratio, the CPU one (reference µs per request / this server's): what one
    // core could serve, which moves less with the machine's load.
    const cpuVs = (other: Kind) => (figures(runs[other]).cpu / f.cpu).toFixed(2);
    const cell = (r: typeof vsBare, other: Kind) =>
      r === undefined
        ? ''
        : !('value' in r)
          ? r.refused
          : r.basis === 'req/s'
            ? `${r.value.toFixed(2)}x (CPU ${cpuVs(other)}x)`
            : `CPU ${r.value.toFixed(2)}x (busy machine: req/s not comparable)`;
    let goalCell = '';
    if (reference !== undefined && vsRef !== undefined) {
      const what = `${NAMES[kind]} vs ${NAMES[reference]}`;
      goalCell = ratioGoal(
        vsRef,
        0.9,
        {
          throughput: 'req/s >= 0.9x the hand-written one',
          cpu: 'CPU per request within 1/0.9 of the hand-written one (the machine was too busy for req/s)',
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
        cell(vsBare, 'bare'),
        cell(vsRef, reference ?? 'bare'),
        String(f.failures),
        goalCell,
      ].join(' | ')} |`,
    );
  }
  const bareFigures = figures(runs.bare);
  console.log(
    `wrk's own CPU per request: ${bareFigures.loadUser.toFixed(1)} µs in user space (the rest of its ${bareFigures.load.toFixed(1)} µs is the kernel's loopback TCP, which the server pays too), against ${bareFigures.cpu.toFixed(1)} µs for the bare server. Ratios are printed only where the reference's event loop was busy >= ${SATURATED_ELU * 100} % (saturated); where a server had less than ${OWN_CORE * 100} % of a core (on-CPU), the machine's other work set its req/s, and the ratio is of CPU per request instead.`,
  );
}
