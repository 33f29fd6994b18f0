import { TokenError } from '../errors.ts';
import { foldV2Aliases } from '../schemas/aliases-v2.ts';
import { describeIssues } from '../schemas/issues.ts';
import {
  lenientTokenPolicySchema,
  playbackPolicyConflicts,
  type TokenPolicy,
} from '../schemas/policy.ts';
import {
  hlsAesWithoutKeyId,
  playbackPolicyV2Conflicts,
  playbackPolicyV2Notes,
  tokenPolicyV2Schema,
  type TokenPolicyV2,
} from '../schemas/policy-v2.ts';
import { parseTolerant } from '../schemas/tolerant.ts';
import { upperCaseHexPaths } from '../schemas/hex-case.ts';
import { readPolicyV1Fast, readPolicyV2Fast } from './read-policy-fast.ts';

const upperCaseNotes = (externalKey: unknown): string[] =>
  upperCaseHexPaths(externalKey, 'policy.external_key').map(
    (path) => `${path}: upper-case hex, read as lower case (writers write lower case)`,
  );

/**
 * A decrypted policy as the license service reads it: v1 with the spec's precedence rules as
 * warnings, v2 with unknown members and builder aliases as warnings. Wrong values are INVALID_POLICY.
 * The usual policies are read by hand (read-policy-fast.ts), the rest by the schemas.
 */
export function readPolicyV1(json: unknown): { policy: TokenPolicy; warnings: string[] } {
  const fast = readPolicyV1Fast(json);
  return fast === undefined ? readPolicyV1BySchema(json) : withV1Warnings(fast);
}

/** {@link readPolicyV1} by lenientTokenPolicySchema alone. */
export function readPolicyV1BySchema(json: unknown): { policy: TokenPolicy; warnings: string[] } {
  const parsed = lenientTokenPolicySchema.safeParse(json);
  if (!parsed.success) {
    throw new TokenError(
      'INVALID_POLICY',
      `The token data breaks the spec: ${describeIssues(parsed.error, 'policy')}.`,
    );
  }
  return withV1Warnings(parsed.data);
}

function withV1Warnings(policy: TokenPolicy): { policy: TokenPolicy; warnings: string[] } {
  const warnings = [
    ...playbackPolicyConflicts(policy.playback_policy ?? {}).map(
      (c) => `playback_policy.${c.path} ${c.message}`,
    ),
    ...upperCaseNotes(policy.external_key),
  ];
  return { policy, warnings };
}

export function readPolicyV2(json: unknown): { policy: TokenPolicyV2; warnings: string[] } {
  const fast = readPolicyV2Fast(json);
  // The hand-read policy has no alias and no unknown member: nothing to note of either.
  return fast === undefined ? readPolicyV2BySchema(json) : withV2Warnings(fast, []);
}

/** {@link readPolicyV2} by the alias fold and tokenPolicyV2Schema alone. */
export function readPolicyV2BySchema(json: unknown): { policy: TokenPolicyV2; warnings: string[] } {
  const folded = foldV2Aliases(json);
  const parsed = parseTolerant(tokenPolicyV2Schema, folded.policy, 'policy');
  if (!parsed.success) {
    throw new TokenError(
      'INVALID_POLICY',
      `The v2 policy breaks the token format: ${parsed.message}.`,
    );
  }
  return withV2Warnings(parsed.data, [
    ...folded.notes.map((note) => `policy.${note}`),
    ...parsed.warnings,
  ]);
}

function withV2Warnings(
  policy: TokenPolicyV2,
  notes: string[],
): { policy: TokenPolicyV2; warnings: string[] } {
  const playback = policy.playback_policy ?? {};
  const warnings = [
    ...notes,
    ...playbackPolicyV2Conflicts(playback).map((c) => `playback_policy.${c.path} ${c.message}`),
    ...playbackPolicyV2Notes(playback),
    ...upperCaseNotes(policy.external_key),
    ...hlsAesWithoutKeyId(policy.external_key).map(
      (path) => `${path}: absent, read without it (the service's newest builders require it)`,
    ),
  ];
  return { policy, warnings };
}
