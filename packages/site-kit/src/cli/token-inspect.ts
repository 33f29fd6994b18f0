import { SiteKitError } from '../errors.ts';
import type { LicenseToken } from '../schemas/token.ts';
import type { TokenPolicy } from '../schemas/policy.ts';
import { formatTimestamp, parseTimestamp } from '../schemas/timestamp.ts';
import { decodeLicenseToken } from '../token/decode.ts';
import type { HashEncoding } from '../token/hash.ts';
import { verifyLicenseToken, type VerifiedLicenseToken } from '../token/verifier.ts';
import { parse, seconds, secret } from './args.ts';
import { UsageError, type CliIo } from './io.ts';

interface Report {
  fields: LicenseToken;
  verified: boolean;
  policy?: VerifiedLicenseToken['policy'];
  expiresAt?: string;
  warnings?: string[];
  error?: { code: string; message: string };
}

/** Exit code 1 when the token is invalid, so scripts can branch on it. */
export async function tokenInspect(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parse(
    argv,
    {
      'site-key': { type: 'string' },
      'access-key': { type: 'string' },
      'site-id': { type: 'string' },
      now: { type: 'string' },
      validity: { type: 'string' },
      skew: { type: 'string' },
      hash: { type: 'string' },
      json: { type: 'boolean' },
    },
    'token inspect',
  );
  if (positionals.length !== 1) {
    throw new UsageError('give exactly one TOKEN, or - to read it from standard input');
  }
  const token = (positionals[0] === '-' ? await io.readStdin() : (positionals[0] as string)).trim();
  const siteKey = secret(values, 'site-key', 'MULTIDRM_SITE_KEY', io);
  const accessKey = secret(values, 'access-key', 'MULTIDRM_ACCESS_KEY', io);
  if ((siteKey === undefined) !== (accessKey === undefined)) {
    throw new UsageError(
      'verifying needs both --site-key and --access-key (or neither, to only decode)',
    );
  }
  const now = values.now === undefined ? io.now() : parseNow(values.now as string);

  const report: Report = { fields: decodeLicenseToken(token), verified: false };
  if (siteKey !== undefined && accessKey !== undefined) {
    try {
      const result = verifyLicenseToken(token, {
        siteKey,
        accessKey,
        siteId: values['site-id'] as string | undefined,
        now,
        validitySeconds: seconds(values.validity, 'validity'),
        clockSkewSeconds: seconds(values.skew, 'skew'),
        hashEncoding: values.hash as HashEncoding | undefined,
      });
      Object.assign(report, {
        verified: true,
        policy: hideContentKeys(result.policy),
        expiresAt: formatTimestamp(result.expiresAt),
        warnings: result.warnings,
      });
    } catch (error) {
      if (!(error instanceof SiteKitError)) throw error;
      report.error = { code: error.code, message: error.message };
    }
  }

  io.stdout(
    values.json
      ? `${JSON.stringify(report, null, 2)}\n`
      : render(report, now, siteKey !== undefined),
  );
  if (report.error) {
    io.stderr(`error ${report.error.code}: ${report.error.message}\n`);
    return 1;
  }
  return 0;
}

function parseNow(value: string): number {
  const ms = parseTimestamp(value) ?? Date.parse(value);
  if (Number.isNaN(ms))
    throw new UsageError(
      `--now must be an ISO 8601 time such as 2026-01-02T03:04:05Z, got "${value}"`,
    );
  return ms;
}

function render(report: Report, now: number, checked: boolean): string {
  const f = report.fields;
  const issued = parseTimestamp(f.timestamp) as number;
  const rows: [string, string][] = [
    ['drm_type', f.drm_type ?? '(absent: "PlayReady" assumed)'],
    ['site_id', f.site_id],
    ['user_id', f.user_id],
    ['cid', f.cid],
    ['timestamp', `${f.timestamp} (${age(now - issued)})`],
    ['token', `${shorten(f.token)} (encrypted token data, ${f.token.length} chars)`],
    [
      'hash',
      `${shorten(f.hash)} (${f.hash.length === 88 ? 'hex-text' : f.hash.length === 44 ? 'raw-digest' : 'unknown'} length)`,
    ],
  ];
  if (report.verified) {
    rows.push(['verified', `yes: hash matches, valid until ${report.expiresAt}`]);
    rows.push(['policy', JSON.stringify(report.policy, null, 2).replace(/\n/g, '\n           ')]);
    for (const warning of report.warnings ?? []) rows.push(['warning', warning]);
  } else if (report.error) {
    rows.push(['verified', `NO: ${report.error.code}`]);
  } else if (!checked) {
    rows.push(['verified', 'not checked: pass --site-key and --access-key to verify and decrypt']);
  }
  return rows.map(([k, v]) => `${k.padEnd(10)} ${v}`).join('\n') + '\n';
}

// Content keys stay off the terminal (and out of logs that capture it): the first 4 characters are
// enough to tell which key a token carries.
function hideContentKeys(policy: TokenPolicy): TokenPolicy {
  const external = policy.external_key;
  if (external === undefined) return policy;
  const hide = <T extends object>(entry: T | undefined, name: 'key' | 'cek'): T | undefined => {
    const value = (entry as Record<string, unknown> | undefined)?.[name];
    if (entry === undefined || typeof value !== 'string') return entry;
    return { ...entry, [name]: `${value.slice(0, 4)}… (${value.length} hex characters, hidden)` };
  };
  return {
    ...policy,
    external_key: {
      ...external,
      ...(external.mpeg_cenc && { mpeg_cenc: hide(external.mpeg_cenc, 'key') }),
      ...(external.hls_aes && { hls_aes: hide(external.hls_aes, 'key') }),
      ...(external.ncg && { ncg: hide(external.ncg, 'cek') }),
    },
  };
}

function shorten(value: string): string {
  return value.length > 24 ? `${value.slice(0, 12)}…${value.slice(-8)}` : value;
}

function age(ms: number): string {
  const s = Math.round(ms / 1000);
  return s >= 0 ? `${s} s ago` : `${-s} s in the future`;
}
