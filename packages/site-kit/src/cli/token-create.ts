import { SiteKitError } from '../errors.ts';
import type { DrmType } from '../schemas/drm-type.ts';
import type { ResponseFormat } from '../schemas/token.ts';
import type { HashEncoding } from '../token/hash.ts';
import { createLicenseToken, type AnyTokenPolicy } from '../token/issuer.ts';
import { parse, requireAll, secret } from './args.ts';
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
      'response-format': { type: 'string' },
      'key-rotation': { type: 'boolean' },
    },
    'token create',
  );
  // Every missing option at once, before any other check, so one run shows all that is left to add.
  const [siteId, siteKey, accessKey, cid] = requireAll([
    ['site-id', secret(values, 'site-id', 'MULTIDRM_SITE_ID', io), 'MULTIDRM_SITE_ID'],
    ['site-key', secret(values, 'site-key', 'MULTIDRM_SITE_KEY', io), 'MULTIDRM_SITE_KEY'],
    ['access-key', secret(values, 'access-key', 'MULTIDRM_ACCESS_KEY', io), 'MULTIDRM_ACCESS_KEY'],
    ['cid', values.cid as string | undefined],
  ]) as [string, string, string, string];
  const policy = await readPolicy(values.policy as string | undefined, io);
  const v2 = typeof policy === 'object' && policy !== null && 'policy_version' in policy;
  if (v2 && values.hash !== undefined) {
    io.stderr(
      'warning: --hash is ignored for a v2 policy: v2 tokens always hash the raw 32-byte digest\n',
    );
  }
  const token = createLicenseToken({
    siteId,
    siteKey,
    accessKey,
    hashEncoding: v2 ? undefined : (values.hash as HashEncoding | undefined),
    cid,
    userId: values['user-id'] as string | undefined,
    drmType: values['drm-type'] as DrmType | undefined,
    policy,
    timestamp: values.timestamp as string | undefined,
    ...(values['response-format'] === undefined
      ? {}
      : { responseFormat: values['response-format'] as ResponseFormat }),
    ...(values['key-rotation'] === undefined ? {} : { keyRotation: true }),
  });
  io.stdout(`${token}\n`);
}

/** The JSON of `--policy JSON` or `--policy @file`; the issuer checks it. */
export async function readPolicy(
  value: string | undefined,
  io: CliIo,
): Promise<AnyTokenPolicy | undefined> {
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
    return JSON.parse(text) as AnyTokenPolicy;
  } catch (error) {
    throw new SiteKitError(
      'INVALID_POLICY',
      `--policy is not valid JSON (${(error as Error).message}); give a JSON object such as '{"policy_version":2,"playback_policy":{"license_duration":3600}}' or @file.json.`,
    );
  }
}
