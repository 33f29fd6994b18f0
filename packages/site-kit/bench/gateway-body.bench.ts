// What a gateway body costs per KB, at the sizes the service sends: 177 bytes usually, up to tens of
// KB for a request with long device data. Two tables from one run:
//
// 1. The whole handler, in-process: a web Request posted to createGatewayHandler and its Response
//    read, beside a hand-written web handler doing the same crypto without checks (request.text(),
//    URLSearchParams, createDecipheriv, JSON.parse, a fixed answer encrypted). In-process rather than
//    over node:http with wrk: a per-KB cost is a difference of two costs per request, which the
//    loopback TCP and wrk's own CPU would drown at small sizes. Clock: this thread's CPU time.
//    Bodies are made by encodeGatewayRequest (a device_id long enough to reach each size), so both
//    handlers decrypt the same bytes. The cost per KB is the slope from the 0.2 KB body: what each
//    KB above it adds. Goal: site-kit's slope at 58 KB within 1.5x the hand-written one's.
// 2. The form read alone (readDataParameter and isBase64): linear, per KB at 58 KB within 1.5x that
//    at 2 KB (character loops that built the value a slice at a time grew to 2-3x).
//
// Interleaved rounds (sizes and handlers alternate), medians per size.
import { randomBytes } from 'node:crypto';
import { isBase64 } from '../src/encoding/base64.ts';
import { readDataParameter } from '../src/http/form-body.ts';
import { createGatewayHandler, encodeGatewayRequest } from '../src/index.ts';
import { goal } from '../../../scripts/bench-goal.ts';
import { handGatewayAnswer } from './hand-gateway.ts';
import { median, table } from './measure.ts';

const SIZES_KB = [0.2, 2, 6, 24, 58];
const ROUNDS = Number(process.env['BENCH_ROUNDS'] ?? 7);
const SITE_KEY = 'lU5D8s3PWoLls3PWFWkClULlFWk5D8oC';
const FORM = 'application/x-www-form-urlencoded';

const cpuUs = () => {
  const { user, system } = process.threadCpuUsage();
  return user + system;
};

/** A form body of about `kb` KB: the usual request, its device_id grown to reach the size. */
function gatewayBody(kb: number): string {
  const target = Math.round(kb * 1024);
  const make = (pad: number) =>
    encodeGatewayRequest(
      {
        format: 'json',
        user_id: 'user-1',
        cid: 'movie-1',
        nonce: '3426u3050329384g',
        drm_type: 'Widevine',
        ...(pad > 0 ? { device_id: randomBytes(pad).toString('hex').slice(0, pad) } : {}),
      },
      SITE_KEY,
    );
  let pad = 0;
  let body = make(pad);
  // The body grows about 1.4 characters per plaintext one (base64, then its escapes).
  for (let step = 0; step < 4 && body.length < target - 16; step++) {
    pad += Math.floor((target - body.length) / 1.45);
    body = make(pad);
  }
  return body;
}

const ANSWER_HEADERS = { 'content-type': 'text/plain; charset=utf-8' };

// The hand-written gateway of http.bench.ts on web objects.
const handAnswer = handGatewayAnswer(SITE_KEY);
async function handGateway(request: Request): Promise<Response> {
  return new Response(handAnswer(await request.text()), { status: 200, headers: ANSWER_HEADERS });
}

const siteKit = createGatewayHandler({
  siteKey: SITE_KEY,
  authorize: () => ({ allow: true, playback_policy: { limit: true, duration: 86400 } }),
});

type Handler = (request: Request) => Promise<Response>;
const HANDLERS: Array<[string, Handler]> = [
  ['site-kit', siteKit],
  ['hand-written', handGateway],
];

/** CPU µs per request: Request made, handled, its answer read (the same for both handlers). */
async function timeHandler(handler: Handler, body: string, calls: number): Promise<number> {
  const start = cpuUs();
  for (let i = 0; i < calls; i++) {
    const request = new Request('http://site.test/gateway', {
      method: 'POST',
      body,
      headers: { 'content-type': FORM },
    });
    const response = await handler(request);
    if (response.status !== 200) throw new Error(`the handler answered ${response.status}`);
    await response.text();
  }
  return (cpuUs() - start) / calls;
}

function timeFormRead(text: string, calls: number): number {
  const start = cpuUs();
  for (let i = 0; i < calls; i++) {
    const value = readDataParameter(text);
    if (value === undefined || !isBase64(value)) throw new Error('the body did not read');
  }
  return (cpuUs() - start) / calls;
}

async function handlers(bodies: string[]): Promise<void> {
  // About 100 ms of CPU per slice: the thread CPU clock of a VM may advance by whole milliseconds.
  const calls = SIZES_KB.map((kb) => Math.round(20_000 / (4 + kb)));
  const times = HANDLERS.map(() => SIZES_KB.map((): number[] => []));
  for (let round = -1; round < ROUNDS; round++) {
    for (let s = 0; s < SIZES_KB.length; s++) {
      // The order alternates between rounds, so neither handler always runs after the other.
      const order = round % 2 === 0 ? [0, 1] : [1, 0];
      for (const h of order) {
        const t = await timeHandler(HANDLERS[h]![1], bodies[s]!, calls[s]!);
        if (round >= 0) times[h]![s]!.push(t); // round -1 warms up
      }
    }
  }
  const kbs = bodies.map((b) => b.length / 1024);
  const med = times.map((perSize) => perSize.map((t) => median(t)));
  const slope = (h: number, s: number) => (med[h]![s]! - med[h]![0]!) / (kbs[s]! - kbs[0]!);
  console.log(
    `in-process web Request -> Response, CPU time of this thread; ${ROUNDS} interleaved rounds, medians; per KB: (µs at the size - µs at the smallest) / KB between them`,
  );
  const rows = [
    [
      'body',
      'site-kit µs',
      'hand-written µs',
      'site-kit / hand',
      'site-kit µs per KB',
      'hand-written µs per KB',
      'per KB, site-kit / hand',
      'goal',
    ],
  ];
  SIZES_KB.forEach((_, s) => {
    const perKb = s === 0 ? undefined : [slope(0, s), slope(1, s)];
    const ratio = perKb === undefined ? undefined : perKb[0]! / perKb[1]!;
    rows.push([
      `${kbs[s]!.toFixed(2)} KB`,
      med[0]![s]!.toFixed(1),
      med[1]![s]!.toFixed(1),
      `${(med[0]![s]! / med[1]![s]!).toFixed(2)}x`,
      perKb === undefined ? '' : perKb[0]!.toFixed(2),
      perKb === undefined ? '' : perKb[1]!.toFixed(2),
      ratio === undefined ? '' : `${ratio.toFixed(2)}x`,
      ratio === undefined || s !== SIZES_KB.length - 1
        ? ''
        : goal(ratio <= 1.5, 'site-kit per KB <= 1.5x hand-written per KB', 'gateway handler'),
    ]);
  });
  table(rows);
}

function formRead(bodies: string[]): void {
  const calls = SIZES_KB.map((kb) => Math.max(200, Math.round(40_000 / kb)));
  bodies.forEach((text, i) => timeFormRead(text, calls[i]!)); // warm-up
  const times: number[][] = SIZES_KB.map(() => []);
  for (let round = 0; round < ROUNDS; round++) {
    bodies.forEach((text, i) => times[i]?.push(timeFormRead(text, calls[i]!)));
  }
  const perKb = SIZES_KB.map((_, i) => median(times[i]!) / (bodies[i]!.length / 1024));
  console.log('\nthe form read alone (readDataParameter + isBase64):');
  const rows = [['body', 'µs per body', 'µs per KB']];
  SIZES_KB.forEach((_, i) => {
    rows.push([
      `${(bodies[i]!.length / 1024).toFixed(2)} KB`,
      median(times[i]!).toFixed(2),
      perKb[i]!.toFixed(2),
    ]);
  });
  const growth = perKb[4]! / perKb[1]!;
  rows.push([
    'per KB, 58 KB / 2 KB',
    '',
    growth.toFixed(2),
    goal(growth <= 1.5, 'linear: <= 1.5x', 'gateway body read per KB'),
  ]);
  table(rows);
}

export default async function bench(): Promise<void> {
  const bodies = SIZES_KB.map(gatewayBody);
  await handlers(bodies);
  formRead(bodies);
}
