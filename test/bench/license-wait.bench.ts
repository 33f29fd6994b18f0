// License wait in a real browser: from `player.load()` until the ClearKey license is accepted, with a
// token round trip of 150 ms injected at the site, with and without @multidrm/player's prefetch,
// against a static-header baseline (the app already holds a token: no round trip on the way).
// Content comes from this machine (no latency) and from a stand-in CDN 100 ms away, where the
// manifest and init segments take time that prefetch can overlap with the token round trip.
// All cases run interleaved in one browser, one run, against the same emulator and content.
import type { PlaySetup } from '../e2e/page/harness-api.ts';
import { e2eSkipped, SKIP_NOTICE } from '../e2e/support/chromium.ts';
import { openSession, type E2eSession } from '../e2e/support/session.ts';
import { flowSetup } from '../e2e/support/setups.ts';
import { SAMPLE, SIGNED_IN_USER } from '../e2e/support/site.ts';
import type { Stack } from '../e2e/support/stack.ts';

const TOKEN_ROUND_TRIP_MS = 150;
const CONTENT_LATENCIES_MS = [0, 100];
const WARM_UP = 2;
const ROUNDS = 12;

interface Sample {
  /** load() to the license answer accepted. */
  licenseMs: number;
  /** load() to the license request leaving the page. */
  sentMs: number;
  /** How long the license request waited for its token (player module's own figure). */
  tokenWaitMs: number | undefined;
}

type Mode = { name: string; setup: (stack: Stack) => Promise<PlaySetup> };

const modes: Mode[] = [
  {
    name: 'static header (baseline)',
    setup: async (stack) => ({
      id: 'bench',
      manifestUrl: stack.manifestUrl,
      auth: {
        mode: 'static-header',
        licenseServer: stack.licenseUrl,
        header: 'x-drm-custom-data',
        // Fetched before the clock starts: the app holds it already.
        value: await fetchToken(stack),
      },
    }),
  },
  {
    name: `token ${TOKEN_ROUND_TRIP_MS} ms, no prefetch`,
    setup: async (stack) =>
      flowSetup(stack, {
        id: 'bench',
        tokenPath: `/token?delay=${TOKEN_ROUND_TRIP_MS}`,
        options: { autoPrefetch: false },
      }),
  },
  {
    name: `token ${TOKEN_ROUND_TRIP_MS} ms, prefetch`,
    setup: async (stack) =>
      flowSetup(stack, {
        id: 'bench',
        tokenPath: `/token?delay=${TOKEN_ROUND_TRIP_MS}`,
        options: { autoPrefetch: true },
      }),
  },
];

async function fetchToken(stack: Stack): Promise<string> {
  const response = await fetch(`${stack.site.url}/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', cookie: `user=${SIGNED_IN_USER}` },
    body: JSON.stringify({ cid: SAMPLE.cid, drm_type: 'Widevine' }),
  });
  if (response.status !== 200) throw new Error(`The site answered ${response.status} for a token.`);
  return response.text();
}

async function measure(session: E2eSession, mode: Mode, latencyMs: number): Promise<Sample> {
  await session.reset();
  const setup = await mode.setup(session.stack);
  session.stack.statics.latencyMs = latencyMs;
  const status = await session
    .start(setup)
    .then(() =>
      session.waitFor(
        'bench',
        'the license',
        (s) =>
          s.errors.length > 0 ||
          (s.marks.licenseSent !== undefined && s.marks.licenseReceived !== undefined),
        10_000,
      ),
    )
    .finally(() => {
      session.stack.statics.latencyMs = 0;
    });
  if (status.errors.length > 0) {
    throw new Error(`${mode.name}: the player failed: ${JSON.stringify(status.errors[0])}`);
  }
  return {
    licenseMs: status.marks.licenseReceived as number,
    sentMs: status.marks.licenseSent as number,
    tokenWaitMs: status.tokenWaitMs,
  };
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? (s[mid] as number) : ((s[mid - 1] as number) + (s[mid] as number)) / 2;
};
const percentile = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))] as number;

export default async function (): Promise<void> {
  if (e2eSkipped()) {
    console.log(SKIP_NOTICE);
    return;
  }
  const session = await openSession();
  try {
    await session.fresh();
    const cases = CONTENT_LATENCIES_MS.flatMap((latencyMs) =>
      modes.map((mode) => ({ mode, latencyMs, samples: [] as Sample[] })),
    );
    // Interleaved, so drift of the machine during the run touches every case alike.
    for (let round = 0; round < WARM_UP + ROUNDS; round++) {
      for (const c of cases) {
        const sample = await measure(session, c.mode, c.latencyMs);
        if (round >= WARM_UP) c.samples.push(sample);
      }
    }
    await session.reset();

    console.log(
      `Chromium, ClearKey via the emulator; ${ROUNDS} loads per case after ${WARM_UP} warm-up rounds; times in ms from player.load().`,
    );
    console.log(
      '| content latency | case | license wait, median | p90 | license request sent, median | token wait in filter, median | wait vs. baseline |',
    );
    console.log('| ---: | --- | ---: | ---: | ---: | ---: | ---: |');
    for (const latencyMs of CONTENT_LATENCIES_MS) {
      const group = cases.filter((c) => c.latencyMs === latencyMs);
      const base = median(group[0]?.samples.map((s) => s.licenseMs) ?? [1]);
      for (const { mode, samples } of group) {
        const wait = samples.map((s) => s.licenseMs);
        const waits = samples.flatMap((s) => (s.tokenWaitMs === undefined ? [] : [s.tokenWaitMs]));
        console.log(
          `| ${latencyMs} | ${mode.name} | ${median(wait).toFixed(1)} | ${percentile(wait, 0.9).toFixed(1)} | ${median(samples.map((s) => s.sentMs)).toFixed(1)} | ${waits.length ? median(waits).toFixed(1) : '-'} | ${(median(wait) / base).toFixed(2)}x |`,
        );
      }
    }
    console.log(
      'Prefetch can hide at most the time before the license request goes out (the "sent" column of the baseline): little with local content, most of the token round trip once content is 100 ms away.',
    );
  } finally {
    await session.close();
  }
}
