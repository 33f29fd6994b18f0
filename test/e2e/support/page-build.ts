import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'vite';

const PAGE_DIR = fileURLToPath(new URL('../page/', import.meta.url));

export interface BuiltPage {
  /** Directory holding index.html and its assets. */
  dir: string;
  remove(): Promise<void>;
}

/**
 * Builds a test page with vite into a fresh temporary directory; by default the main one:
 * shaka-player's compiled build and @multidrm/player (its TypeScript source, as an app would bundle
 * it) in one script. Other suites (adapters, msw-browser) pass their own page folder.
 */
export async function buildTestPage(pageDir: string = PAGE_DIR): Promise<BuiltPage> {
  const dir = await mkdtemp(join(tmpdir(), 'multidrm-e2e-page-'));
  try {
    await build({
      root: pageDir,
      configFile: false,
      logLevel: 'error',
      base: './',
      build: {
        outDir: dir,
        emptyOutDir: true,
        target: 'es2022',
        minify: false,
        sourcemap: false,
        reportCompressedSize: false,
        // The players' compiled builds are large single files by design.
        chunkSizeWarningLimit: 8192,
      },
    });
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
  return { dir, remove: () => rm(dir, { recursive: true, force: true }) };
}
