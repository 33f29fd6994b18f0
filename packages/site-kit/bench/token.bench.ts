// Token issuing and verification against the bare crypto floor for the same work, in one run.
import { createCipheriv, createSecretKey, hash } from 'node:crypto';
import { createTokenIssuer, createTokenVerifier, type TokenPolicy } from '../src/index.ts';
import { goal } from '../../../scripts/bench-goal.ts';
import { compare, fmt, table } from './measure.ts';

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

export default async function run(): Promise<void> {
  const issuer = createTokenIssuer(site);
  const verifier = createTokenVerifier({ ...site });
  const fixed = policyFor(3600);
  const prepared = issuer.preparePolicy(fixed);
  const issue = (policy: TokenPolicy) =>
    issuer.issue({ cid: 'movie', userId: 'user', drmType: 'Widevine', policy, timestamp: TS });
  const token = issue(fixed);
  const now = Date.parse(TS);

  const ops = compare({
    floor,
    fresh: (i) => issue(policyFor(i)),
    cached: () => issue(fixed),
    prepared: () => issue(prepared),
    verify: () => verifier.verify(token, { now }),
  });
  const { floor: base = 0, fresh = 0, cached = 0, prepared: ready = 0, verify = 0 } = ops;
  const cost = (x: number) => `cost ${(base / x).toFixed(2)}x`;
  const speed = (x: number) => `${(x / base).toFixed(2)}x throughput`;
  table([
    ['work', 'ops/s', 'vs floor', 'goal'],
    ['crypto floor (AES + SHA-256 + JSON + base64)', fmt(base), '1.00x', ''],
    [
      'issue, a new policy every token',
      fmt(fresh),
      cost(fresh),
      goal(base / fresh <= 1.25, 'cost <= 1.25x', 'token issue, new policy'),
    ],
    ['issue, repeated policy object (cache by content)', fmt(cached), speed(cached), ''],
    [
      'issue, repeated policy (preparePolicy)',
      fmt(ready),
      speed(ready),
      goal(ready / base >= 3, 'throughput >= 3x', 'token issue, preparePolicy'),
    ],
    ['verify (hash, window, decrypt, policy schema)', fmt(verify), cost(verify), ''],
  ]);
}
