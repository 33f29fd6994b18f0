/**
 * One hand-written mutant: a small wrong change to a source file that a test should notice. Each is
 * a claim of the package (a check, a boundary, an encoding) and the tests that stand for that claim.
 */
export interface Mutant {
  /** Short and unique within its package, e.g. `token-expiry-boundary`. */
  id: string;
  /** The source file, from the repository root. */
  file: string;
  /** Text that occurs exactly once in `file` (a stale entry is reported, never guessed at). */
  original: string;
  /** What replaces it. */
  mutated: string;
  /** Why a user would be hurt if this change went unnoticed. */
  why: string;
  /** The test files (from the repository root) that claim this; `--all-tests` runs the project. */
  tests: string[];
  /**
   * Why no test can kill it (the code never reaches the change): such a mutant is listed, not run
   * and not counted. Set only after reading the code, never to make a figure.
   */
  equivalent?: string;
}

/** A package's mutants and the vitest project that tests it. */
export interface Catalogue {
  project: 'site-kit' | 'emulator' | 'player';
  mutants: Mutant[];
}
