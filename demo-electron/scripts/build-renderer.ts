import { fileURLToPath } from 'node:url';
import { build } from 'vite';

export const DEMO_ROOT = fileURLToPath(new URL('..', import.meta.url));

/** Builds the renderer page into dist/renderer with vite (about 2 s). */
export async function buildRenderer(): Promise<void> {
  await build({ configFile: fileURLToPath(new URL('../vite.config.ts', import.meta.url)) });
}
