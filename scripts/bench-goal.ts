// The goals benchmarks print beside their figures. A missed goal gets a marker that stands out in a
// table and is listed again at the end of `pnpm bench`, so a regression cannot hide in a wide row.
// Shared state on purpose: the runner and every bench module import this one module instance.

export const MISSED_MARKER = '!! MISSED';

const results: Array<{ met: boolean; goal: string }> = [];

/** Records a goal and returns its cell: "met: GOAL" or "!! MISSED: GOAL". */
export function goal(met: boolean, text: string, what: string): string {
  results.push({ met, goal: `${what}: ${text}` });
  return met ? `met: ${text}` : `${MISSED_MARKER}: ${text}`;
}

/** What the runner prints last: every missed goal again, or that all were met (none: nothing). */
export function goalReport(): string | undefined {
  const missed = results.filter((r) => !r.met).map((r) => `  - ${r.goal}`);
  if (missed.length > 0) {
    return `${MISSED_MARKER}: ${missed.length} of ${results.length} goals\n${missed.join('\n')}`;
  }
  return results.length > 0 ? `all ${results.length} goals met` : undefined;
}
