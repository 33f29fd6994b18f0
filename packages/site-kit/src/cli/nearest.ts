/**
 * The candidate closest to a mistyped word, when it is close enough to be what was meant: within a
 * few edits (leading dashes aside), or an abbreviation of it (same first letter, letters in order).
 */
export function nearest(word: string, candidates: readonly string[]): string | undefined {
  const typed = bare(word);
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of candidates) {
    const name = bare(candidate);
    const d = abbreviates(typed, name) ? 1 : distance(typed, name);
    if (d < bestDistance) [best, bestDistance] = [candidate, d];
  }
  return bestDistance <= Math.max(1, Math.floor(typed.length / 3)) ? best : undefined;
}

const bare = (word: string) => word.toLowerCase().replace(/^-+/, '');

function abbreviates(short: string, long: string): boolean {
  if (short.length < 3 || short[0] !== long[0]) return false;
  let at = 0;
  for (const char of long) if (char === short[at]) at += 1;
  return at >= short.length;
}

/** Edits between two words: insertions, deletions, substitutions and swaps of neighbours. */
function distance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  const at = (i: number, j: number) => d[i]?.[j] as number;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        best = Math.min(best, at(i - 2, j - 2) + 1);
      }
      (d[i] as number[])[j] = best;
    }
  }
  return at(a.length, b.length);
}
