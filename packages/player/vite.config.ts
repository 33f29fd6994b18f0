import { defineConfig } from 'vite';

/** Library build: one ESM file; shaka-player (peer) and axios stay imports of the app's bundle. */
export const libraryBuild = {
  lib: {
    entry: new URL('./src/index.ts', import.meta.url).pathname,
    formats: ['es' as const],
    fileName: () => 'index.js',
  },
  rolldownOptions: {
    external: ['shaka-player', 'axios', /^shaka-player\//, /^axios\//],
    // Vite keeps whitespace in ES library output unless the bundler is told to minify.
    output: { minify: true },
  },
  target: 'es2022',
  minify: true,
  sourcemap: true,
};

export default defineConfig({ build: { ...libraryBuild, outDir: 'dist', emptyOutDir: true } });
