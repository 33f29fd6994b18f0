import type * as z from 'zod/mini';
import { describeIssues } from './issues.ts';

export type TolerantResult<T> =
  | { success: true; data: T; warnings: string[] }
  | { success: false; message: string; issues: z.core.$ZodIssue[] };

/**
 * Parses with a strict schema but lets unknown members through as warnings (dropped from the data):
 * token builders disagree on what they emit, so a reader refuses wrong values, not extra members.
 */
export function parseTolerant<T>(
  schema: z.ZodMiniType<T>,
  value: unknown,
  root: string,
): TolerantResult<T> {
  const first = schema.safeParse(value);
  if (first.success) return { success: true, data: first.data, warnings: [] };
  const unknown = first.error.issues.filter((i) => i.code === 'unrecognized_keys');
  const wrong = first.error.issues.filter((i) => i.code !== 'unrecognized_keys');
  if (wrong.length > 0 || unknown.length === 0) {
    return { success: false, message: describe(wrong, root), issues: wrong };
  }
  const pruned = structuredClone(value);
  for (const issue of unknown) {
    const owner = issue.path.reduce<unknown>(
      (node, key) => (node as Record<PropertyKey, unknown>)[key],
      pruned,
    ) as Record<string, unknown>;
    for (const key of issue.keys) delete owner[key];
  }
  const second = schema.safeParse(pruned);
  if (!second.success) {
    return {
      success: false,
      message: describe(second.error.issues, root),
      issues: second.error.issues,
    };
  }
  const warnings = unknown.flatMap((issue) =>
    issue.keys.map((key) => {
      const path = [root, ...issue.path.map(String), key].filter(Boolean).join('.');
      return `${path}: unknown member, ignored (not in the token format; some builder added it)`;
    }),
  );
  return { success: true, data: second.data, warnings };
}

function describe(issues: z.core.$ZodIssue[], root: string): string {
  return describeIssues({ issues } as z.core.$ZodError, root);
}
