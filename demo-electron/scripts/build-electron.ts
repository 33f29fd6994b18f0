import { fileURLToPath } from 'node:url';
import { build, type InlineConfig } from 'vite';

const at = (path: string) => fileURLToPath(new URL(path, import.meta.url));

// Main and preload are bundled with their dependencies, so the packaged app needs no node_modules.
const shared = (
  entry: string,
  outDir: string,
  format: 'es' | 'cjs',
  fileName: string,
): InlineConfig => ({
  configFile: false,
  logLevel: 'warn',
  root: at('..'),
  ssr: { noExternal: true, target: 'node' },
  build: {
    ssr: entry,
    outDir,
    emptyOutDir: true,
    target: 'node22',
    minify: false,
    rolldownOptions: {
      external: ['electron', /^node:/],
      output: { format, entryFileNames: fileName },
    },
  },
});

/** Builds dist/main/index.js (ESM) and dist/preload/index.cjs (a single CommonJS file, as a sandboxed preload must be). */
export async function buildElectron(): Promise<void> {
  await build(shared(at('../src/main/index.ts'), at('../dist/main'), 'es', 'index.js'));
  await build(shared(at('../src/preload/index.ts'), at('../dist/preload'), 'cjs', 'index.cjs'));
}
