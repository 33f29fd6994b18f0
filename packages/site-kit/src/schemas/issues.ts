import type * as z from 'zod/mini';

/**
 * One line per zod issue, each naming the full field path and the rule:
 * `policy.playback_policy.duration: must not be negative`.
 */
export function describeIssues(error: z.core.$ZodError, root: string): string {
  return error.issues.map((issue) => describeIssue(issue, root)).join('; ');
}

function describeIssue(issue: z.core.$ZodIssue, root: string): string {
  const path = [root, ...issue.path.map(String)].filter(Boolean).join('.');
  if (issue.code === 'unrecognized_keys') {
    return `${path || 'value'}: unknown member${issue.keys.length > 1 ? 's' : ''} ${issue.keys
      .map((k) => `"${k}"`)
      .join(', ')} (the spec defines no such field)`;
  }
  return `${path || 'value'}: ${issue.message}`;
}
