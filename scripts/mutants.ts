/**
 * `pnpm mutants [site-kit|emulator|player ...] [--only id,id] [--all-tests] [--check]`: applies each mutant of
 * the catalogues in scripts/mutants/ to its source file, one at a time and in place, runs the tests
 * that claim it (or, with --all-tests, the package's whole vitest project) and reports per package
 * how many were killed, listing the survivors. Exit 1 when a package is under 95 %, 2 when a
 * catalogue entry no longer matches its source (the code moved on: update the entry); `--check`
 * only checks that.
 *
 * Not part of `pnpm test`: one vitest start per mutant takes minutes on a busy machine. StrykerJS
 * runs with this vitest, but generates ~100 mutants per small module and took ~16 minutes for one
 * of them here; a catalogue of chosen mutants keeps the run bounded and each mutant meaningful.
 *
 * The source is always restored: in `finally`, on SIGINT/SIGTERM, and from the journal
 * (.mutants/journal.json) at the next start if the process was killed outright.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { Catalogue, Mutant } from './mutants/catalogue.ts';
import { emulator } from './mutants/emulator.ts';
import { player } from './mutants/player.ts';
import { siteKit } from './mutants/site-kit.ts';

const GOAL = 0.95;
const ROOT = resolve(import.meta.dirname, '..');
const WORK = resolve(ROOT, '.mutants');
const JOURNAL = resolve(WORK, 'journal.json');
const LOCK = resolve(WORK, 'run.pid');
const CATALOGUES: Record<string, Catalogue> = {
  'site-kit': siteKit,
  emulator,
  player,
};

interface Journal {
  /** The run that mutated the file: a live run's file is left to it. */
  pid: number;
  file: string;
  content: string;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Refuses to start beside a live run, then puts back a file a killed run left mutated. */
function recover(): void {
  const running = existsSync(LOCK) ? Number(readFileSync(LOCK, 'utf8')) : undefined;
  if (running !== undefined && running !== process.pid && alive(running)) {
    throw new Error(`another mutation run (pid ${running}) is going on here; wait for it`);
  }
  writeFileSync(LOCK, String(process.pid));
  process.on('exit', () => rmSync(LOCK, { force: true }));
  if (!existsSync(JOURNAL)) return;
  const journal = JSON.parse(readFileSync(JOURNAL, 'utf8')) as Journal;
  if (journal.pid !== process.pid && alive(journal.pid)) {
    throw new Error(`another mutation run (pid ${journal.pid}) is on ${journal.file}; wait for it`);
  }
  writeFileSync(journal.file, journal.content);
  rmSync(JOURNAL);
  console.log(`restored ${journal.file}, left mutated by an interrupted run`);
}

let active: Journal | undefined;
let child: ReturnType<typeof spawn> | undefined;

function restore(): void {
  if (!active) return;
  writeFileSync(active.file, active.content);
  rmSync(JOURNAL, { force: true });
  active = undefined;
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    // The test run is our own child, in its own process group: end that group only.
    if (child?.pid) process.kill(-child.pid, 'SIGKILL');
    restore();
    process.exit(130);
  });
}

type Outcome = 'passed' | 'failed' | 'timed out';

/** Runs vitest on `tests` within `project`; a timeout ends the run's own process group. */
function runTests(project: string, tests: string[], timeoutMs: number): Promise<Outcome> {
  const args = ['exec', 'vitest', 'run', '--project', project, '--bail', '1', '--reporter', 'dot'];
  return new Promise((done) => {
    const run = spawn('pnpm', [...args, ...tests], { cwd: ROOT, detached: true, stdio: 'ignore' });
    child = run;
    const timer = setTimeout(() => {
      if (run.pid) process.kill(-run.pid, 'SIGKILL');
      done('timed out');
    }, timeoutMs);
    run.on('exit', (code) => {
      clearTimeout(timer);
      child = undefined;
      done(code === 0 ? 'passed' : 'failed');
    });
  });
}

/** Entries whose text no longer occurs exactly once, or that name a missing file or test. */
function staleEntries(mutants: Mutant[]): string[] {
  const problems: string[] = [];
  const ids = new Set<string>();
  for (const mutant of mutants) {
    if (ids.has(mutant.id)) problems.push(`${mutant.id}: the id is used twice`);
    ids.add(mutant.id);
    const path = resolve(ROOT, mutant.file);
    if (!existsSync(path)) {
      problems.push(`${mutant.id}: ${mutant.file} does not exist`);
      continue;
    }
    const count = readFileSync(path, 'utf8').split(mutant.original).length - 1;
    if (count !== 1) problems.push(`${mutant.id}: its original text occurs ${count} times`);
    if (mutant.original === mutant.mutated) problems.push(`${mutant.id}: mutated = original`);
    for (const test of mutant.tests) {
      if (!existsSync(resolve(ROOT, test))) problems.push(`${mutant.id}: no test file ${test}`);
    }
  }
  return problems;
}

interface Result {
  mutant: Mutant;
  outcome: Outcome;
  seconds: number;
}

async function runCatalogue(
  name: string,
  catalogue: Catalogue,
  only: Set<string> | undefined,
  allTests: boolean,
): Promise<Result[]> {
  const mutants = catalogue.mutants.filter((m) => (!only || only.has(m.id)) && !m.equivalent);
  const testsOf = (m: Mutant) => (allTests ? [] : m.tests);
  // The tests must pass unmutated, or a "kill" would mean nothing.
  const started = performance.now();
  const baselineTests = [...new Set(mutants.flatMap(testsOf))];
  const baseline = await runTests(catalogue.project, baselineTests, 15 * 60_000);
  if (baseline !== 'passed') {
    throw new Error(`${name}: the tests ${baseline} before any mutant; fix them first`);
  }
  // A mutant that loops forever is a kill too; judged well above the unmutated run.
  const timeoutMs = Math.max(90_000, 3 * (performance.now() - started));
  const results: Result[] = [];
  for (const [index, mutant] of mutants.entries()) {
    const file = resolve(ROOT, mutant.file);
    const content = readFileSync(file, 'utf8');
    active = { pid: process.pid, file, content };
    writeFileSync(JOURNAL, JSON.stringify(active));
    writeFileSync(
      file,
      content.replace(mutant.original, () => mutant.mutated),
    );
    const start = performance.now();
    let outcome: Outcome;
    try {
      outcome = await runTests(catalogue.project, testsOf(mutant), timeoutMs);
    } finally {
      restore();
    }
    const seconds = Math.round((performance.now() - start) / 100) / 10;
    results.push({ mutant, outcome, seconds });
    const verdict = outcome === 'passed' ? 'SURVIVED' : `killed (${outcome})`;
    console.log(`${name} ${index + 1}/${mutants.length} ${mutant.id}: ${verdict} ${seconds}s`);
  }
  return results;
}

async function main(): Promise<number> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      only: { type: 'string' },
      'all-tests': { type: 'boolean', default: false },
      check: { type: 'boolean', default: false },
    },
  });
  const names = positionals.length > 0 ? positionals : Object.keys(CATALOGUES);
  const unknown = names.filter((name) => !(name in CATALOGUES));
  if (unknown.length > 0) {
    console.error(`unknown package ${unknown.join(', ')}; one of ${Object.keys(CATALOGUES)}`);
    return 2;
  }
  const stale = names.flatMap((name) => staleEntries(CATALOGUES[name]!.mutants));
  if (stale.length > 0) {
    console.error(`catalogue entries that no longer match the source:\n  ${stale.join('\n  ')}`);
    return 2;
  }
  if (values.check) {
    console.log('every catalogue entry matches its source');
    return 0;
  }
  mkdirSync(WORK, { recursive: true });
  recover();
  const only = values.only ? new Set(values.only.split(',')) : undefined;
  const summary: string[] = [];
  let belowGoal = false;
  for (const name of names) {
    const results = await runCatalogue(name, CATALOGUES[name]!, only, values['all-tests']);
    if (results.length === 0) continue;
    const survivors = results.filter((r) => r.outcome === 'passed');
    const killed = results.length - survivors.length;
    const share = killed / results.length;
    if (share < GOAL) belowGoal = true;
    summary.push(`${name}: ${killed}/${results.length} killed (${(share * 100).toFixed(1)} %)`);
    for (const { mutant } of survivors) {
      summary.push(`  survived ${mutant.id} (${mutant.file}): ${mutant.why}`);
    }
    for (const mutant of CATALOGUES[name]!.mutants.filter((m) => m.equivalent)) {
      summary.push(`  equivalent, not counted: ${mutant.id}: ${mutant.equivalent}`);
    }
  }
  writeFileSync(resolve(WORK, 'last-run.txt'), `${summary.join('\n')}\n`);
  console.log(`\n${summary.join('\n')}`);
  return belowGoal ? 1 : 0;
}

process.exitCode = await main();
