import { SiteKitError } from '../errors.ts';
import type { TokenPolicy } from '../schemas/policy.ts';
import { convertPolicyToV2 } from '../token/convert-policy.ts';
import { parse } from './args.ts';
import { UsageError, type CliIo } from './io.ts';
import { readPolicy } from './token-create.ts';

/** Prints the v2 policy for a v1 one; each rule without an exact counterpart is a warning on stderr. */
export async function tokenConvert(argv: string[], io: CliIo): Promise<void> {
  const { values } = parse(argv, { policy: { type: 'string' } }, 'token convert');
  const policy = await readPolicy(values.policy as string | undefined, io);
  if (policy === undefined)
    throw new UsageError('--policy is required (a v1 policy JSON or @FILE)');
  if (typeof policy === 'object' && policy !== null && 'policy_version' in policy) {
    throw new SiteKitError(
      'INVALID_POLICY',
      '--policy is already a v2 policy (it has policy_version): nothing to convert.',
    );
  }
  const { policy: v2, warnings } = convertPolicyToV2(policy as TokenPolicy);
  for (const warning of warnings) io.stderr(`warning: ${warning}\n`);
  io.stdout(`${JSON.stringify(v2)}\n`);
}
