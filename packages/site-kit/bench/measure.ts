/**
 * Measures several candidates fairly on a shared machine: they run in alternating slices over several
 * rounds, so a burst of load elsewhere hits all of them alike; each gets its best round's rate.
 */
export function compare(
  candidates: Record<string, (i: number) => unknown>,
  options: { rounds?: number; sliceMs?: number } = {},
): Record<string, number> {
  const rounds = compareRounds(candidates, options);
  return Object.fromEntries(
    Object.entries(rounds).map(([name, rates]) => [name, Math.max(...rates)]),
  );
}

// The clock of a slice is this thread's CPU time, not the wall's: on a machine shared with other
// work the thread is descheduled for whole milliseconds, which a wall clock would charge to whichever
// candidate happened to run (one busy moment moved a ratio by 30 %). CPU time still counts what the
// candidate itself costs, its garbage collection on this thread included.
const cpuMs = () => {
  const { user, system } = process.threadCpuUsage();
  return (user + system) / 1000;
};

/** `compare`, every round's rate kept: ratios taken within a round pair slices run side by side. */
export function compareRounds(
  candidates: Record<string, (i: number) => unknown>,
  { rounds = 7, sliceMs = 150 } = {},
): Record<string, number[]> {
  const rates: Record<string, number[]> = {};
  for (const [name, fn] of Object.entries(candidates)) {
    for (let i = 0; i < 3000; i++) fn(i);
    rates[name] = [];
  }
  let n = 0;
  for (let round = 0; round < rounds; round++) {
    for (const [name, fn] of Object.entries(candidates)) {
      let count = 0;
      const start = cpuMs();
      let elapsed = 0;
      while (elapsed < sliceMs) {
        for (let j = 0; j < 200; j++) fn(n++);
        count += 200;
        elapsed = cpuMs() - start;
      }
      rates[name]?.push((count / elapsed) * 1000);
    }
  }
  return rates;
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

export function table(rows: string[][]): void {
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => (r[c] ?? '').length)));
  for (const row of rows)
    console.log(
      row
        .map((cell, c) => cell.padEnd(widths[c]!))
        .join('  ')
        .trimEnd(),
    );
}

export const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
