import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { expect, test } from 'vitest';

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
  'each player’s README example type-checks against this package and that player’s own types',
  { timeout: 90_000 },
  async () => {
    // Inside the package, so that '@multidrm/player/...' (self-reference) and the players resolve.
    const dir = mkdtempSync(join(pkg, '.readme-example-'));
    try {
      for (const name of PLAYERS) {
        writeFileSync(join(dir, `${name}.ts`), example(name));
        // The next asset, on the player of the example before it.
        writeFileSync(
          join(dir, `${name}-playlist.ts`),
          `${example(name)}\n${example(`${name}-playlist`)}`,
        );
      }
      writeFileSync(join(dir, 'proxy.ts'), example('proxy'));
      writeFileSync(join(dir, 'renewal.ts'), example('renewal'));
      // What the examples take from the page around them.
      writeFileSync(
        join(dir, 'page.d.ts'),
        'declare const video: HTMLVideoElement;\ndeclare const manifestUrl: string;\n' +
          'declare const nextManifestUrl: string;\n' +
          'declare function showMessage(message: string | undefined): void;\n',
      );
      // A browser app's settings, as a Vite app has them (the repo's own are Node's).
      const compilerOptions = {
        target: 'ES2022',
        module: 'ESNext',
        moduleResolution: 'Bundler',
        lib: ['ES2023', 'DOM', 'DOM.Iterable'],
        types: [],
        strict: true,
        noEmit: true,
        skipLibCheck: true,
        // The package's entries are its .ts sources inside the workspace.
        allowImportingTsExtensions: true,
      };
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
