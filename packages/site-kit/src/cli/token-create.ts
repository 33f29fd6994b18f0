import { SiteKitError } from '../errors.ts';
import type { DrmType } from '../schemas/drm-type.ts';
import type { TokenPolicy } from '../schemas/policy.ts';
import type { HashEncoding } from '../token/hash.ts';
import { createLicenseToken } from '../token/issuer.ts';
import { parse, required, secret } from './args.ts';
import type { CliIo } from './io.ts';

export async function tokenCreate(argv: string[], io: CliIo): Promise<void> {
  const { values } = parse(
    argv,
    {
      'site-id': { type: 'string' },
      'site-key': { type: 'string' },
      'access-key': { type: 'string' },
      cid: { type: 'string' },
      'user-id': { type: 'string' },
      'drm-type': { type: 'string' },
      policy: { type: 'string' },
      timestamp: { type: 'string' },
      hash: { type: 'string' },
    },
    'token create',
  );
  const token = createLicenseToken({
    siteId: required(
      secret(values, 'site-id', 'MULTIDRM_SITE_ID', io),
      'site-id',
      'MULTIDRM_SITE_ID',
    ),
    siteKey: required(
      secret(values, 'site-key', 'MULTIDRM_SITE_KEY', io),
      'site-key',
      'MULTIDRM_SITE_KEY',
    ),
    accessKey: required(
      secret(values, 'access-key', 'MULTIDRM_ACCESS_KEY', io),
      'access-key',
      'MULTIDRM_ACCESS_KEY',
    ),
    hashEncoding: values.hash as HashEncoding | undefined,
    cid: required(values.cid as string | undefined, 'cid'),
    userId: values['user-id'] as string | undefined,
    drmType: values['drm-type'] as DrmType | undefined,
    policy: await readPolicy(values.policy as string | undefined, io),
    timestamp: values.timestamp as string | undefined,
  });
  io.stdout(`${token}\n`);
}

async function readPolicy(value: string | undefined, io: CliIo): Promise<TokenPolicy | undefined> {
  if (value === undefined) return undefined;
  let text = value;
  if (value.startsWith('@')) {
    try {
      text = await io.readFile(value.slice(1));
    } catch (error) {
      throw new SiteKitError(
        'INVALID_INPUT',
        `--policy ${value}: cannot read the file (${(error as NodeJS.ErrnoException).code ?? 'error'}).`,
      );
    }
  }
  try {
    return JSON.parse(text) as TokenPolicy;
  } catch (error) {
    throw new SiteKitError(
      'INVALID_POLICY',
      `--policy is not valid JSON (${(error as Error).message}); give a JSON object such as '{"playback_policy":{"limit":false}}' or @file.json.`,
    );
  }
}
