import { gzipSync } from 'node:zlib';
import { join } from 'node:path';
import { build, type Plugin } from 'vite';

// Bundles a Worker the way a Workers build does: one ES module, the export conditions workerd,
// worker and browser, everything inlined. Used by `pnpm bench` for the size budget and by the
// runtime table to run the Workers example in workerd.
const root = join(import.meta.dirname, '../../..');
export const WORKER_CONDITIONS = ['workerd', 'worker', 'browser'];

export interface Bundle {
  code: string;
  bytes: number;
  gzipBytes: number;
  /** Rendered bytes per package (or `site-kit`), largest first. */
  parts: [string, number][];
}

/**
 * Bundles `entry`: a file path, or `{ code }`, a Worker's source resolved as if it sat at the
 * repository's root (so `@multidrm/site-kit/...` resolves as in a site's project).
 */
export async function bundleWorker(
  entry: string | { code: string },
  { minify = true } = {},
): Promise<Bundle> {
  // A made-up file at the root: bare imports then resolve from the root's node_modules.
  const virtual = join(root, '__worker-entry.js');
  const plugins: Plugin[] =
    typeof entry === 'string'
      ? []
      : [
          {
            name: 'worker-entry',
            resolveId: (id) => (id === virtual ? id : undefined),
            load: (id) => (id === virtual ? entry.code : undefined),
          },
        ];
  const output = await build({
    configFile: false,
    logLevel: 'silent',
    root,
    plugins,
    resolve: { conditions: WORKER_CONDITIONS },
    build: {
      write: false,
      minify,
      target: 'es2022',
      lib: {
        entry: typeof entry === 'string' ? entry : virtual,
        formats: ['es'],
        fileName: 'worker',
      },
    },
  });
  const chunks = (Array.isArray(output) ? output : [output]).flatMap((o) =>
    'output' in o ? o.output : [],
  );
  const chunk = chunks.find((c) => c.type === 'chunk');
  if (chunk === undefined || chunk.type !== 'chunk') throw new Error('the bundle has no chunk');
  const parts = new Map<string, number>();
  for (const [id, info] of Object.entries(chunk.modules)) {
    const name = /node_modules\/\.pnpm\/(@?[^@/]+(?:\+[^@/]+)?)@/.exec(id)?.[1]?.replace('+', '/');
    const key = name ?? (id.includes('packages/site-kit/') ? 'site-kit' : 'the Worker');
    parts.set(key, (parts.get(key) ?? 0) + info.renderedLength);
  }
  return {
    code: chunk.code,
    bytes: Buffer.byteLength(chunk.code),
    gzipBytes: gzipSync(chunk.code).length,
    parts: [...parts].sort((a, b) => b[1] - a[1]),
  };
}
