import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { expect, test } from 'vitest';
import { BROWSER_COMPILER_OPTIONS, PAGE_DECLARATIONS, readmePrograms } from './readme-code.ts';

const pkg = join(import.meta.dirname, '..');
const readme = readFileSync(join(pkg, 'README.md'), 'utf8');
const PLAYERS = ['shaka', 'hls', 'dash', 'videojs'] as const;

/** The code block after `<!-- example: NAME -->` in the README. */
function example(name: string): string {
  const match = /```ts\n([\s\S]*?)```/.exec(readme.split(`<!-- example: ${name} -->`)[1] ?? '');
  if (!match?.[1]) throw new Error(`README has no ts block after <!-- example: ${name} -->`);
  return match[1];
}

test.each([...PLAYERS, ...PLAYERS.map((name) => `${name}-playlist`), 'proxy'])(
  'the README shows %s in ten lines after its imports',
  (name) => {
    const lines = example(name)
      .split('\n')
      .filter((line) => line.trim() !== '' && !line.startsWith('import '));
    expect(lines.length).toBeGreaterThan(1);
    expect(lines.length).toBeLessThanOrEqual(10);
  },
);

test(
  'every TypeScript block of the README type-checks against this package and the players’ own types',
  { timeout: 90_000 },
  async () => {
    const programs = readmePrograms(readme);
    // Every block, none left out (an indented fence would be).
    expect(programs).toHaveLength(readme.split('```ts\n').length - 1);
    // Inside the package, so that '@multidrm/player/...' (self-reference) and the players resolve.
    const dir = mkdtempSync(join(pkg, '.readme-example-'));
    try {
      for (const { file, code } of programs) writeFileSync(join(dir, file), code);
      writeFileSync(join(dir, 'page.d.ts'), PAGE_DECLARATIONS);
      // The package's entries are its .ts sources inside the workspace (test/packaging checks the
      // same programs against the packed types).
      const compilerOptions = { ...BROWSER_COMPILER_OPTIONS, allowImportingTsExtensions: true };
      writeFileSync(
        join(dir, 'tsconfig.json'),
        JSON.stringify({ compilerOptions, include: ['*.ts', '../test/types'] }),
      );
      const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
      const errors = await promisify(execFile)(process.execPath, [tsc, '-p', dir]).then(
        () => '',
        (error: { stdout?: string }) => error.stdout || String(error),
      );
      expect(errors).toBe('');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
);
