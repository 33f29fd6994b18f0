// Token issuing and verification against the bare crypto floor for the same work and against the
// node:crypto limit (the crypto alone, every input ready), in one run. The candidates run in
// alternating slices of 150 ms of this thread's CPU time over 9 rounds (measure.ts); each ratio is
// taken within a round, slice beside slice, and the median of the rounds' ratios is printed, so that
// load from elsewhere on the machine moves the floor and the candidate alike. ops/s: best round, per
// CPU second.
// The measurement runs in a child process of its own: `pnpm bench` runs every module in one process,
// and what ran before (a bundler's heap, other code's type feedback) would weigh on whichever
// candidate shares code with it.
import { fork } from 'node:child_process';
import { createCipheriv, createSecretKey, hash } from 'node:crypto';
import { createTokenIssuer, createTokenVerifier, type TokenPolicy } from '../src/index.ts';
import { goal } from '../../../scripts/bench-goal.ts';
import { compareRounds, fmt, median, table } from './measure.ts';

const site = {
  siteId: 'TUTO',
  siteKey: 'lU5D8s3PWoLls3PWFWkClULlFWk5D8oC',
  accessKey: 'LT2FVJDp2Xr018zf4Di6lzvNOv3DKP20',
};
const TS = '2026-01-02T03:04:05Z';
const policyFor = (i: number): TokenPolicy => ({
  playback_policy: { limit: true, persistent: false, duration: i },
  security_policy: {
    hardware_drm: false,
    output_protect: { control_hdcp: 1 },
    playready_security_level: 150,
  },
});

// The floor: the work any correct issuer must do, written straight against node:crypto.
const key = createSecretKey(Buffer.from(site.siteKey));
const IV = Buffer.from('0123456789abcdef');
function floor(i: number): string {
  const cipher = createCipheriv('aes-256-cbc', key, IV);
  const data = JSON.stringify(policyFor(i));
  const token = Buffer.concat([cipher.update(data, 'utf8'), cipher.final()]).toString('base64');
  const s = site.accessKey + 'Widevine' + site.siteId + 'user' + 'movie' + token + TS;
  const h = Buffer.from(hash('sha256', s, 'hex').toUpperCase()).toString('base64');
  const json = JSON.stringify({
    drm_type: 'Widevine',
    site_id: site.siteId,
    user_id: 'user',
    cid: 'movie',
    token,
    timestamp: TS,
    hash: h,
  });
  return Buffer.from(json).toString('base64');
}

// The limit: what node:crypto alone needs for a token, every input ready: 12 AES-256-CBC blocks (a
// policy's size) on a context made once, one SHA-256 of the hash input, base64 of the token JSON.
// Nothing an issuer can skip; a fresh policy costs what it costs beyond this in checks and text.
const cipher = createCipheriv('aes-256-cbc', key, IV).setAutoPadding(false);
const blocks = Buffer.alloc(12 * 16, 0x41);
const hashInput =
  site.accessKey + 'Widevine' + site.siteId + 'user' + 'movie' + 'x'.repeat(256) + TS;
const tokenJsonBytes = Buffer.alloc(520, 0x42);
function limit(): string {
  const field = cipher.update(blocks).toString('base64');
  const h = hash('sha256', hashInput + field.length, 'base64');
  return tokenJsonBytes.toString('base64') + h;
}

type Rounds = Record<string, number[]>;

function measure(): Rounds {
  const issuer = createTokenIssuer(site);
  const verifier = createTokenVerifier({ ...site });
  const fixed = policyFor(3600);
  const prepared = issuer.preparePolicy(fixed);
  const issue = (policy: TokenPolicy) =>
    issuer.issue({ cid: 'movie', userId: 'user', drmType: 'Widevine', policy, timestamp: TS });
  const token = issue(fixed);
  const now = Date.parse(TS);
  return compareRounds(
    {
      floor,
      limit,
      fresh: (i) => issue(policyFor(i)),
      cached: () => issue(fixed),
      prepared: () => issue(prepared),
      verify: () => verifier.verify(token, { now }),
    },
    { rounds: 9 },
  );
}

const CHILD = 'MULTIDRM_BENCH_TOKEN_CHILD';
if (process.env[CHILD] === '1' && process.send !== undefined) {
  process.send(measure(), () => process.exit(0));
}

function measureInChild(): Promise<Rounds> {
  const child = fork(new URL(import.meta.url), [], {
    env: { ...process.env, [CHILD]: '1' },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  return new Promise((resolve, reject) => {
    child.once('message', (rounds) => resolve(rounds as Rounds));
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`the token bench process exited with ${code}`)));
  });
}

export default async function run(): Promise<void> {
  const rounds = await measureInChild();
  const floorRates = rounds['floor'] ?? [];
  const best = (name: string) => Math.max(...(rounds[name] ?? []));
  // Throughput relative to the floor, round by round: > 1 is faster than the floor.
  const speed = (name: string) =>
    median((rounds[name] ?? []).map((rate, i) => rate / (floorRates[i] ?? Number.NaN)));
  const fresh = speed('fresh');
  const cached = speed('cached');
  // Cost relative to the limit, round by round: 1.6 is 60 % more time per token than the limit.
  const overLimit = median(
    (rounds['fresh'] ?? []).map((rate, i) => (rounds['limit']?.[i] ?? Number.NaN) / rate),
  );
  table([
    ['work', 'ops/s', 'vs floor (median of rounds)', 'goal'],
    [
      'crypto floor (createCipheriv, AES, SHA-256, JSON, base64 per token)',
      fmt(best('floor')),
      '1.00x',
      '',
    ],
    [
      'node:crypto limit (12 AES blocks on one context + SHA-256 + base64)',
      fmt(best('limit')),
      `${speed('limit').toFixed(2)}x throughput`,
      '',
    ],
    [
      'issue, a new policy object every token',
      fmt(best('fresh')),
      `cost ${(1 / fresh).toFixed(2)}x floor, ${overLimit.toFixed(2)}x limit`,
      goal(overLimit <= 1.6, 'cost <= 1.6x the limit', 'token issue, new policy'),
    ],
    [
      'issue, the same policy object again',
      fmt(best('cached')),
      `${cached.toFixed(2)}x throughput`,
      goal(cached >= 3, 'throughput >= 3x', 'token issue, same policy object'),
    ],
    [
      'issue, a preparePolicy policy',
      fmt(best('prepared')),
      `${speed('prepared').toFixed(2)}x throughput`,
      '',
    ],
    [
      'verify (hash, window, decrypt, policy schema)',
      fmt(best('verify')),
      `cost ${(1 / speed('verify')).toFixed(2)}x`,
      '',
    ],
  ]);
}
