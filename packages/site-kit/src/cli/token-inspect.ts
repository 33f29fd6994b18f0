import { SiteKitError } from '../errors.ts';
import type { LicenseToken } from '../schemas/token.ts';
import { formatTimestamp, parseTimestamp } from '../schemas/timestamp.ts';
import { readLicenseToken, type TokenVersion } from '../token/decode.ts';
import type { HashEncoding } from '../token/hash.ts';
import { verifyLicenseToken, type VerifiedLicenseToken } from '../token/verifier.ts';
import { parse, seconds, secret } from './args.ts';
import { UsageError, type CliIo } from './io.ts';

type AnyPolicy = VerifiedLicenseToken['policy'];

interface Report {
  version: TokenVersion;
  fields: LicenseToken;
  verified: boolean;
  policy?: AnyPolicy;
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

  const read = readLicenseToken(token);
  const report: Report = { version: read.version, fields: read.fields, verified: false };
  if (read.warnings.length > 0) report.warnings = read.warnings;
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
    ['version', report.version === 2 ? '2 (policy)' : '1 (token data)'],
    ['drm_type', f.drm_type ?? '(absent: "PlayReady" assumed)'],
    ['site_id', f.site_id],
    ['user_id', f.user_id],
    ['cid', f.cid],
    ['timestamp', `${f.timestamp} (${age(now - issued)})`],
  ];
  if ('token' in f) {
    rows.push(['token', `${shorten(f.token)} (encrypted token data, ${f.token.length} chars)`]);
  } else {
    rows.push(['policy', `${shorten(f.policy)} (encrypted v2 policy, ${f.policy.length} chars)`]);
    rows.push(['response', `${f.response_format ?? '(absent: "original")'} (outside the hash)`]);
    rows.push(['rotation', `${f.key_rotation ?? '(absent: false)'} (outside the hash)`]);
  }
  rows.push([
    'hash',
    `${shorten(f.hash)} (${f.hash.length === 88 ? 'hex-text' : f.hash.length === 44 ? 'raw-digest' : 'unknown'} length)`,
  ]);
  if (report.verified) {
    rows.push(['verified', `yes: hash matches, valid until ${report.expiresAt}`]);
    rows.push(['policy', JSON.stringify(report.policy, null, 2).replace(/\n/g, '\n           ')]);
  } else if (report.error) {
    rows.push(['verified', `NO: ${report.error.code}`]);
  } else if (!checked) {
    rows.push(['verified', 'not checked: pass --site-key and --access-key to verify and decrypt']);
  }
  for (const warning of report.warnings ?? []) rows.push(['warning', warning]);
  return rows.map(([k, v]) => `${k.padEnd(10)} ${v}`).join('\n') + '\n';
}

// Content keys stay off the terminal (and out of logs that capture it): the first 4 characters are
// enough to tell which key a token carries. Works on both versions' shapes (objects and v2 arrays).
function hideContentKeys(policy: AnyPolicy): AnyPolicy {
  const external = policy.external_key as Record<string, unknown> | undefined;
  if (external === undefined) return policy;
  const hide = (entry: unknown): unknown => {
    if (Array.isArray(entry)) return entry.map(hide);
    if (typeof entry !== 'object' || entry === null) return entry;
    const out: Record<string, unknown> = { ...entry };
    for (const name of ['key', 'cek']) {
      const value = out[name];
      if (typeof value === 'string') {
        out[name] = `${value.slice(0, 4)}… (${value.length} hex characters, hidden)`;
      }
    }
    return out;
  };
  const hidden = Object.fromEntries(Object.entries(external).map(([k, v]) => [k, hide(v)]));
  return { ...policy, external_key: hidden } as AnyPolicy;
}

function shorten(value: string): string {
  return value.length > 24 ? `${value.slice(0, 12)}…${value.slice(-8)}` : value;
}

function age(ms: number): string {
  const s = Math.round(ms / 1000);
  return s >= 0 ? `${s} s ago` : `${-s} s in the future`;
}
