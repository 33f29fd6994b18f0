// The token workload of `pnpm bench runtimes`, the same in every runtime: n tokens, each with a new
// policy object ('fresh') or all with one ('same'), through the issuer the runtime's site would use.
export type IssueOne = (options: {
  cid: string;
  userId: string;
  drmType: 'Widevine';
  policy: object;
  timestamp: string;
}) => string | Promise<string>;

export const SITE = {
  siteId: 'BENCH',
  siteKey: 'lU5D8s3PWoLls3PWFWkClULlFWk5D8oC',
  accessKey: 'LT2FVJDp2Xr018zf4Di6lzvNOv3DKP20',
};

const policyFor = (i: number) => ({
  policy_version: 2,
  playback_policy: { persistent: false, license_duration: 3600 + (i % 100_000) },
  security_policy: [{ track_type: 'ALL', widevine: { security_level: 1 } }],
});

export type Workload = 'fresh' | 'same';

/** Issues `n` tokens; resolves when the last is made. */
export async function issueMany(issue: IssueOne, n: number, workload: Workload): Promise<void> {
  const same = policyFor(0);
  for (let i = 0; i < n; i++) {
    const token = issue({
      cid: 'movie',
      userId: 'user',
      drmType: 'Widevine',
      policy: workload === 'fresh' ? policyFor(i) : same,
      timestamp: '2026-01-02T03:04:05Z',
    });
    if (typeof token !== 'string') await token;
  }
}
