// Bundle size of @multidrm/player's own code (shaka-player and axios are external): builds the
// library with vite's API into a temp dir, unminified and minified, and prints raw, minified and
// gzipped bytes against the 7.5 KiB (7680 bytes) gzip budget (6 KiB until the license service's
// dialect, sessions, offline and the header check came in; the README says what each KiB buys).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { build } from 'vite';
import { goal } from '../../../scripts/bench-goal.ts';
import { libraryBuild } from '../vite.config.ts';

export const BUDGET_GZIP = 7.5 * 1024;

export async function bundle(outDir: string, minify: boolean): Promise<string> {
  await build({
    configFile: false,
    logLevel: 'silent',
    root: join(import.meta.dirname, '..'),
    build: {
      ...libraryBuild,
      minify,
      sourcemap: false,
      outDir,
      emptyOutDir: true,
      rolldownOptions: { ...libraryBuild.rolldownOptions, output: { minify } },
    },
  });
  return readFileSync(join(outDir, 'index.js'), 'utf8');
}

export default async function (): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'player-size-'));
  try {
    const raw = await bundle(join(dir, 'raw'), false);
    const min = await bundle(join(dir, 'min'), true);
    const gzip = gzipSync(min, { level: 9 }).length;
    const imports = [...min.matchAll(/from\s*["']([^"']+)["']/g)].map((m) => m[1]);
    console.log('| build | bytes |');
    console.log('|---|---:|');
    console.log(`| raw (ESM, unminified) | ${Buffer.byteLength(raw)} |`);
    console.log(`| minified | ${Buffer.byteLength(min)} |`);
    console.log(`| minified + gzip -9 | ${gzip} |`);
    console.log(`| budget (gzip) | ${BUDGET_GZIP} |`);
    console.log(
      `gzip size is ${((gzip / BUDGET_GZIP) * 100).toFixed(1)}% of the budget (${goal(gzip <= BUDGET_GZIP, `gzip <= ${BUDGET_GZIP} bytes`, 'player bundle size')}); external imports: ${imports.join(', ')}`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
