import { TokenError } from '../errors.ts';
import { foldV2Aliases } from '../schemas/aliases-v2.ts';
import { describeIssues } from '../schemas/issues.ts';
import {
  lenientTokenPolicySchema,
  playbackPolicyConflicts,
  type TokenPolicy,
} from '../schemas/policy.ts';
import {
  playbackPolicyV2Conflicts,
  playbackPolicyV2Notes,
  tokenPolicyV2Schema,
  type TokenPolicyV2,
} from '../schemas/policy-v2.ts';
import { parseTolerant } from '../schemas/tolerant.ts';
import { upperCaseHexPaths } from '../schemas/hex-case.ts';

const upperCaseNotes = (externalKey: unknown): string[] =>
  upperCaseHexPaths(externalKey, 'policy.external_key').map(
    (path) => `${path}: upper-case hex, read as lower case (writers write lower case)`,
  );

/**
 * A decrypted policy as the license service reads it: v1 with the spec's precedence rules as
 * warnings, v2 with unknown members and builder aliases as warnings. Wrong values are INVALID_POLICY.
 */
export function readPolicyV1(json: unknown): { policy: TokenPolicy; warnings: string[] } {
  const parsed = lenientTokenPolicySchema.safeParse(json);
  if (!parsed.success) {
    throw new TokenError(
      'INVALID_POLICY',
      `The token data breaks the spec: ${describeIssues(parsed.error, 'policy')}.`,
    );
  }
  const warnings = [
    ...playbackPolicyConflicts(parsed.data.playback_policy ?? {}).map(
      (c) => `playback_policy.${c.path} ${c.message}`,
    ),
    ...upperCaseNotes(parsed.data.external_key),
  ];
  return { policy: parsed.data, warnings };
}

export function readPolicyV2(json: unknown): { policy: TokenPolicyV2; warnings: string[] } {
  const folded = foldV2Aliases(json);
  const parsed = parseTolerant(tokenPolicyV2Schema, folded.policy, 'policy');
  if (!parsed.success) {
    throw new TokenError(
      'INVALID_POLICY',
      `The v2 policy breaks the token format: ${parsed.message}.`,
    );
  }
  const playback = parsed.data.playback_policy ?? {};
  const warnings = [
    ...folded.notes.map((note) => `policy.${note}`),
    ...parsed.warnings,
    ...playbackPolicyV2Conflicts(playback).map((c) => `playback_policy.${c.path} ${c.message}`),
    ...playbackPolicyV2Notes(playback),
    ...upperCaseNotes(parsed.data.external_key),
  ];
  return { policy: parsed.data, warnings };
}
