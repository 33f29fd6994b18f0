import { defineConfig } from 'vite';

const src = (path: string) => new URL(`./src/${path}`, import.meta.url).pathname;

/** The package's entries: the main one (Shaka, as before the other players) and one per player. */
export const ENTRIES = {
  index: src('index.ts'),
  shaka: src('shaka/index.ts'),
  hls: src('hls/index.ts'),
  dash: src('dash/index.ts'),
  videojs: src('videojs/index.ts'),
};

/** The players (optional peers) and axios stay imports of the app's bundle. */
export const EXTERNAL = [
  /^(shaka-player|axios|hls\.js|dashjs|video\.js|videojs-contrib-eme)(\/|$)/,
];

/** Library build: ESM, one file per entry and the engine in a chunk they share. */
export const libraryBuild = {
  lib: {
    entry: ENTRIES,
    formats: ['es' as const],
    fileName: (_: string, name: string) => `${name}.js`,
  },
  rolldownOptions: {
    external: EXTERNAL,
    // Vite keeps whitespace in ES library output unless the bundler is told to minify.
    output: { minify: true, chunkFileNames: 'chunks/[name]-[hash].js' },
  },
  target: 'es2022',
  minify: true,
  sourcemap: true,
};

export default defineConfig({ build: { ...libraryBuild, outDir: 'dist', emptyOutDir: true } });
