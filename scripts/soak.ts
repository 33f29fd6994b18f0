// `pnpm soak [--seconds 300] [--rate 100]`: mixed traffic at a steady rate through the emulator and a
// site built from site-kit's handlers, both on node:http over loopback. Half the playbacks use token
// mode (token endpoint, then the emulator verifies the token), half gateway mode (custom data
// endpoint, then the emulator calls the site's gateway back). Every license is checked for the right
// key. Prints a progress line every 10 s and a verdict; exits 1 on any error, on memory growth, or on
// open handles that grow (process.getActiveResourcesInfo()).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { startEmulator } from '@multidrm/emulator';
import {
  createCustomDataHandler,
  createGatewayHandler,
  createTokenHandler,
  toNodeListener,
  type DrmType,
} from '@multidrm/site-kit';
// The CLI's typo helper, shared rather than copied.
import { nearest } from '../packages/site-kit/src/cli/nearest.ts';

const USAGE = `Usage: pnpm soak [--seconds N] [--rate N]

Mixed token- and gateway-mode playbacks at a steady rate through the emulator and a site built from
site-kit's handlers; exits 1 on any error, memory growth or handle growth.

  --seconds N   how long to run (default 300)
  --rate N      playbacks per second (default 100)
`;
let values: { seconds: string; rate: string; help?: boolean };
try {
  ({ values } = parseArgs({
    options: {
      seconds: { type: 'string', default: '300' },
      rate: { type: 'string', default: '100' },
      help: { type: 'boolean', short: 'h' },
    },
  }));
} catch (error) {
  const reason = (error as Error).message.replace(/\. To specify.*$/s, '');
  const typed = /'(--?[^']+)'/.exec(reason)?.[1];
  const close = typed === undefined ? undefined : nearest(typed, ['--seconds', '--rate', '--help']);
  const hint = close === undefined ? '' : ` (did you mean ${close}?)`;
  process.stderr.write(`pnpm soak: ${reason}${hint}\n\n${USAGE}`);
  process.exit(2);
}
if (values.help) {
  process.stdout.write(USAGE);
  process.exit(0);
}
const SECONDS = Number(values.seconds);
const RATE = Number(values.rate);
if (!(SECONDS > 0) || !(RATE > 0)) {
  process.stderr.write(`pnpm soak: --seconds and --rate must be positive numbers\n\n${USAGE}`);
  process.exit(2);
}
// Memory is compared after a full GC; memory and handles are taken once the first tenth (at least
// 20 s) has passed, so start-up and JIT warm-up are not counted as growth.
const MAX_RSS_GROWTH = 0.1;
const MAX_HEAP_GROWTH = 0.25;
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

// Made up for this run: 32 ASCII characters, as a site key must be.
const SITE = {
  siteId: 'SOAKSITE',
  siteKey: 'sO4kT3sTk3y0123456789abcdefghijk',
  accessKey: 'soak-access-key',
};
const CID = 'soak-movie';
const KID = '5eed5eed5eed5eed5eed5eed5eed5eed';
const KEY = '0badc0de0badc0de0badc0de0badc0de';
const DRM_TYPES: readonly DrmType[] = ['Widevine', 'PlayReady', 'FairPlay', 'NCG'];

function listen(server: Server): Promise<string> {
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`),
    ),
  );
}

const routes = {
  '/token': toNodeListener(
    createTokenHandler({
      ...SITE,
      authorize: () => ({
        allow: true,
        userId: 'soak-user',
        policy: { playback_policy: { limit: true, duration: 600 } },
      }),
    }),
  ),
  '/custom-data': toNodeListener(
    createCustomDataHandler({
      siteId: SITE.siteId,
      siteKey: SITE.siteKey,
      authorize: () => ({ allow: true, userId: 'soak-user' }),
    }),
  ),
  '/gateway': toNodeListener(
    createGatewayHandler({
      siteKey: SITE.siteKey,
      authorize: () => ({ allow: true, playback_policy: { limit: true, duration: 600 } }),
    }),
  ),
};
const site = createServer((req, res) => {
  const route = routes[req.url as keyof typeof routes];
  if (route) void route(req, res);
  else res.writeHead(404).end();
});
const siteUrl = await listen(site);
const emulator = await startEmulator({
  sites: [{ ...SITE, gatewayUrl: `${siteUrl}/gateway` }],
  keys: { [CID]: { kid: KID, key: KEY } },
});

const licenseBody = JSON.stringify({
  kids: [Buffer.from(KID, 'hex').toString('base64url')],
  type: 'temporary',
});
const expectedKey = Buffer.from(KEY, 'hex').toString('base64url');

/** One playback's license flow; resolves to undefined when right, else what went wrong. */
async function playback(n: number): Promise<string | undefined> {
  const mode = n % 2 === 0 ? 'token' : 'gateway';
  const drmType = DRM_TYPES[n % 4] as DrmType;
  const signal = AbortSignal.timeout(10_000);
  try {
    const fromSite = await fetch(`${siteUrl}/${mode === 'token' ? 'token' : 'custom-data'}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ cid: CID, drm_type: drmType }),
      signal,
    });
    const header = await fromSite.text();
    if (fromSite.status !== 200) return `${mode}: site HTTP ${fromSite.status}`;
    const response = await fetch(`${emulator.url}/license`, {
      method: 'POST',
      headers: { 'x-drm-custom-data': header },
      body: licenseBody,
      signal,
    });
    const answer = (await response.json()) as {
      keys?: Array<{ k?: string }>;
      error_code?: string;
    };
    if (response.status !== 200)
      return `${mode}: license HTTP ${response.status} ${answer.error_code}`;
    if (answer.keys?.[0]?.k !== expectedKey) return `${mode}: a license with the wrong key`;
    return undefined;
  } catch (error) {
    return `${mode}: ${error instanceof Error ? error.message : String(error)}`;
  }
}

interface Sample {
  rss: number;
  heapUsed: number;
  handles: number;
}
function sample(): Sample {
  gc();
  const { rss, heapUsed } = process.memoryUsage();
  return { rss, heapUsed, handles: process.getActiveResourcesInfo().length };
}
const mib = (bytes: number) => (bytes / 2 ** 20).toFixed(1);

let sent = 0;
let done = 0;
let failed = 0;
const failures: string[] = [];
const latencies: number[] = [];
const inFlight = new Set<Promise<void>>();

const started = performance.now();
const warmUpMs = Math.max(20_000, SECONDS * 100);
let baseline: Sample | undefined;
let lastReport = started;
console.log(
  `soak: ${SECONDS} s at ${RATE} playbacks/s (token and gateway mode alternating) through the emulator at ${emulator.url}`,
);

// A steady rate: each tick sends what the clock says is due, however long answers take.
await new Promise<void>((resolve) => {
  const timer = setInterval(() => {
    const now = performance.now();
    const elapsed = now - started;
    const due = Math.min(Math.floor((elapsed / 1000) * RATE), SECONDS * RATE);
    while (sent < due) {
      const n = sent++;
      const t0 = performance.now();
      const p = playback(n).then((problem) => {
        done += 1;
        latencies.push(performance.now() - t0);
        if (problem !== undefined) {
          failed += 1;
          if (failures.length < 10) failures.push(problem);
        }
        inFlight.delete(p);
      });
      inFlight.add(p);
    }
    if (baseline === undefined && elapsed >= warmUpMs) baseline = sample();
    if (now - lastReport >= 10_000) {
      lastReport = now;
      const s = sample();
      console.log(
        `${(elapsed / 1000).toFixed(0).padStart(4)} s  playbacks ${done}  errors ${failed}  in flight ${inFlight.size}  rss ${mib(s.rss)} MiB  heap ${mib(s.heapUsed)} MiB  handles ${s.handles}`,
      );
    }
    if (sent >= SECONDS * RATE) {
      clearInterval(timer);
      resolve();
    }
  }, 20);
});
await Promise.all(inFlight);
// Idle keep-alive sockets of fetch are handles too; let them time out before counting.
await new Promise((r) => setTimeout(r, 5_500));
const end = sample();
await emulator.close();
await new Promise((r) => site.close(r));

latencies.sort((a, b) => a - b);
const at = (q: number) =>
  latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))];
const base = baseline ?? end;
const rssGrowth = (end.rss - base.rss) / base.rss;
const heapGrowth = (end.heapUsed - base.heapUsed) / base.heapUsed;
const problems: string[] = [];
if (failed > 0) problems.push(`${failed} playbacks failed: ${failures.join('; ')}`);
if (done !== SECONDS * RATE) problems.push(`${done} of ${SECONDS * RATE} playbacks ended`);
if (rssGrowth > MAX_RSS_GROWTH) problems.push(`RSS grew ${(rssGrowth * 100).toFixed(1)} %`);
if (heapGrowth > MAX_HEAP_GROWTH) problems.push(`heap grew ${(heapGrowth * 100).toFixed(1)} %`);
if (end.handles > base.handles) problems.push(`open handles ${base.handles} -> ${end.handles}`);
console.log(
  `playbacks ${done} (${(done / SECONDS).toFixed(0)}/s), errors ${failed}, latency p50 ${at(0.5)?.toFixed(1)} ms p99 ${at(0.99)?.toFixed(1)} ms; after warm-up -> end: rss ${mib(base.rss)} -> ${mib(end.rss)} MiB (${(rssGrowth * 100).toFixed(1)} %), heap ${mib(base.heapUsed)} -> ${mib(end.heapUsed)} MiB, handles ${base.handles} -> ${end.handles}`,
);
if (problems.length > 0) {
  console.log(`FAIL: ${problems.join('; ')}`);
  process.exit(1);
}
console.log('PASS: no error, no memory growth, no handle growth');
