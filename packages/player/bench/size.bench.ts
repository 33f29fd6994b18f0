// Bundle sizes of @multidrm/player as an app ships them, minified and gzipped (-9), with the players
// left out (they are the app's). The package never imports axios (an app that wants it passes its
// instance), so no bundler, splitting or not, puts axios in an app that does not use it. Each app imports what the README's examples import from
// one adapter (`attachLicenseAuth`, `findLicenseAuthError`) and is built twice: in one file (the
// total), and with the engine's modules in a chunk of their own (the engine as that app bundles it,
// tree-shaken to what its adapter uses). The adapter's figure is what it adds to the app: the total
// less the engine. Budgets of issue 18: engine <= 5 KiB, each adapter <= 1.5 KiB.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { build, type Plugin } from 'vite';
import { goal } from '../../../scripts/bench-goal.ts';
import { EXTERNAL } from '../vite.config.ts';

const ROOT = join(import.meta.dirname, '..');
const src = (path: string) => join(ROOT, 'src', path);

export const ADAPTERS = ['shaka', 'hls', 'dash', 'videojs'] as const;
export type Adapter = (typeof ADAPTERS)[number];

/** The issue's budgets, gzip bytes. */
export const BUDGET = { engine: 5 * 1024, adapter: 1.5 * 1024 } as const;

/**
 * What the tests hold the sizes to: each measure when it was made plus a margin of 32 bytes. The
 * engine misses its budget (README.md says what its bytes buy): the largest engine an app bundled
 * (the video.js app, 9666 B, with the session per load, the renewal's token window, clearTokens(),
 * the bounds of a long session and license renewal). The adapters of hls.js, dash.js and video.js
 * are well within the issue's budget; Shaka's is not: it binds each license request to its own
 * operation by what Shaka gives for it (the player's DRM engine, the preload manager handed to
 * player.load(), a preload's or download's own initDataTransform, the removal named for it),
 * re-sends a refused request from the challenge as the CDM made it, and sends renewals through
 * Shaka's networking engine.
 */
const MARGIN = 32;
export const CEILING = {
  engine: 9666 + MARGIN,
  adapter: {
    shaka: 2603 + MARGIN,
    hls: 1001 + MARGIN,
    dash: 844 + MARGIN,
    videojs: 959 + MARGIN,
  },
} as const;

/**
 * Each app in one file at 3b61b54, the main before issues #36 (load identity) and #37 (renewal),
 * measured with this bench. Issue #36's goal: no app grows by more than 512 bytes for it; the
 * renewal driver (#37) is measured apart, by stubbing its modules out of the app.
 */
export const BEFORE: Record<Adapter, number> = {
  shaka: 9673,
  hls: 8771,
  dash: 8596,
  videojs: 8900,
};
export const GROWTH_GOAL = 512;
const RENEWAL_MODULES = ['engine/renewal.ts', 'engine/eme-sessions.ts'];

/** What the README's examples import from an adapter's entry. */
export const APP_IMPORTS = ['attachLicenseAuth', 'findLicenseAuthError'] as const;

const ENGINE = /[\\/]src[\\/]engine[\\/]/;

/**
 * Builds `entry` as an app's bundler would: minified ESM, `external` (by default the players and
 * axios) left as imports. With `source`, `entry` is a module of the package's folder that exists
 * only in this build (so that the package's dependencies resolve); `split` puts the engine's
 * modules in a chunk of their own, `engine.js`. Returns each output file's code.
 */
async function buildLib(
  entry: string,
  outDir: string,
  options: {
    source?: string;
    split?: boolean;
    /** One file whatever the code does, as esbuild's default (no splitting) builds it. */
    inline?: boolean;
    plugins?: Plugin[];
    external?: RegExp[];
  } = {},
): Promise<Record<string, string>> {
  const { source, external = EXTERNAL } = options;
  await build({
    configFile: false,
    logLevel: 'silent',
    root: ROOT,
    plugins: [
      ...(options.plugins ?? []),
      source === undefined
        ? []
        : {
            name: 'virtual-entry',
            resolveId: (id) => (id === entry ? id : null),
            load: (id) => (id === entry ? source : null),
          },
    ],
    build: {
      lib: { entry, formats: ['es'], fileName: () => 'bundle.js' },
      outDir,
      emptyOutDir: true,
      minify: true,
      sourcemap: false,
      target: 'es2022',
      rolldownOptions: {
        external: (id: string) => external.some((pattern) => pattern.test(id)),
        output: {
          minify: true,
          chunkFileNames: '[name].js',
          ...(options.split && { codeSplitting: { groups: [{ name: 'engine', test: ENGINE }] } }),
          ...(options.inline && { codeSplitting: false }),
        },
      },
    },
  });
  return Object.fromEntries(
    readdirSync(outDir).map((file) => [file, readFileSync(join(outDir, file), 'utf8')]),
  );
}

/** Minified ESM of `entry`, in one file. */
export const bundle = async (entry: string, outDir: string, plugins?: Plugin[]): Promise<string> =>
  (await buildLib(entry, outDir, { plugins }))['bundle.js'] ?? '';

export const gzip = (code: string): number => gzipSync(code, { level: 9 }).length;

/** Imports the bundle keeps: the packages left to the app, loaded with it or on demand. */
export const importsOf = (code: string): { static: string[]; dynamic: string[] } => ({
  static: [...code.matchAll(/from\s*["']([^"']+)["']/g)].map((m) => m[1] as string),
  dynamic: [...code.matchAll(/import\(\s*["'`]([^"'`]+)["'`]\s*\)/g)].map((m) => m[1] as string),
});

/** The players only: axios, resolvable, would be bundled if anything imported it. */
export const PLAYERS_ONLY = [/^(shaka-player|hls\.js|dashjs|video\.js|videojs-contrib-eme)(\/|$)/];

/**
 * An app with one adapter built in one file without code splitting (esbuild's default), with
 * axios resolvable: what it ships, and its code (to see that no axios is in it).
 */
export async function unsplitApp(
  adapter: Adapter,
  dir: string,
): Promise<{ bytes: number; code: string }> {
  const from = JSON.stringify(src(`${adapter}/index.ts`));
  const files = await buildLib(join(ROOT, `app-${adapter}.js`), join(dir, `${adapter}-unsplit`), {
    source: `export { ${APP_IMPORTS.join(', ')} } from ${from};`,
    inline: true,
    external: PLAYERS_ONLY,
  });
  const code = Object.values(files).join('\n');
  return { bytes: gzip(code), code };
}

/** axios as an app bundles it for the browser: what an app that does not use it never ships. */
export async function axiosSize(dir: string): Promise<number> {
  const files = await buildLib(join(ROOT, 'axios-entry.js'), join(dir, 'axios'), {
    source: "export { default } from 'axios';",
    external: [],
  });
  return gzip(files['bundle.js'] ?? '');
}

/** One app's bytes: its engine chunk, what the adapter adds to it, and the app in one file. */
export interface AppSize {
  engine: number;
  adapter: number;
  total: number;
}
export type Sizes = Record<Adapter, AppSize>;

/** An app that imports APP_IMPORTS from one adapter; gzip bytes of each of its files. */
async function buildApp(
  adapter: Adapter,
  outDir: string,
  options: { split?: boolean; plugins?: Plugin[] } = {},
): Promise<Record<string, number>> {
  const from = JSON.stringify(src(`${adapter}/index.ts`));
  const files = await buildLib(join(ROOT, `app-${adapter}.js`), outDir, {
    ...options,
    source: `export { ${APP_IMPORTS.join(', ')} } from ${from};`,
  });
  return Object.fromEntries(Object.entries(files).map(([file, code]) => [file, gzip(code)]));
}

const appTotal = async (adapter: Adapter, outDir: string, plugins?: Plugin[]) =>
  (await buildApp(adapter, outDir, { plugins }))['bundle.js'] ?? NaN;

export async function measure(dir: string): Promise<Sizes> {
  const sizes = {} as Sizes;
  for (const adapter of ADAPTERS) {
    const split = await buildApp(adapter, join(dir, `${adapter}-split`), { split: true });
    const engine = split['engine.js'] ?? NaN;
    const total = await appTotal(adapter, join(dir, adapter));
    sizes[adapter] = { engine, adapter: total - engine, total };
  }
  return sizes;
}

/** Parts of the engine, by the modules that make them. */
const PARTS: Array<[string, string[]]> = (
  [
    [
      'refusals in the service’s dialect: reading, 8002’s site code, json licenses, advice',
      ['service-error.ts', 'license-answer.ts'],
    ],
    [
      'license requests the hls.js, dash.js and video.js adapters send (retry, deadline, PlayReady)',
      ['license-request.ts', 'playready.ts'],
    ],
    [
      'the site’s endpoint: the app’s axios instance or fetch, its errors; retry and deadlines',
      ['site-client.ts', 'retry.ts'],
    ],
    ['option checks (every broken rule in one error)', ['options.ts']],
    [
      'exchange state: token attach, answer reading, refresh decision, prefetch choice, events',
      ['engine.ts', 'events.ts'],
    ],
    ['token cache and single flight (a fetch ends when no load waits for it)', ['token-cache.ts']],
    [
      'a session per load: its cid, its aborts, the player’s loads one after the other',
      ['session.ts'],
    ],
    ['FairPlay helpers (certificate, SPC body, CKC, skd:// cid)', ['fairplay.ts']],
    ['header check for remote servers', ['header-check.ts']],
    [
      'license renewal: the driver per load, the EME sessions it learns, its events',
      ['renewal.ts', 'eme-sessions.ts'],
    ],
    [
      'proxy mode: the proxy URL with drmType and cid, the proxy’s own failures typed',
      ['proxy.ts'],
    ],
    ['error classes, finding them in a player’s error', ['errors.ts', 'find-error.ts']],
    ['bytes, key systems', ['bytes.ts', 'key-systems.ts']],
  ] as Array<[string, string[]]>
).map(([part, files]) => [part, files.map((file) => `engine/${file}`)]);

/** Parts of the Shaka adapter (its legacy FairPlay transform is in an app only if it imports it). */
const SHAKA_PARTS: Array<[string, string[]]> = [
  [
    'filters: token on license messages, answers read, re-send through the networking engine, 401/403',
    ['shaka/license-filters.ts'],
  ],
  [
    'drm.failureCallback, licenseFailed, retryLicensing() for dropped sessions',
    ['shaka/failure-callback.ts'],
  ],
  [
    'which load a request belongs to: the player’s, a preload’s, a download’s',
    ['shaka/load-routing.ts'],
  ],
];

/** Replaces modules (paths under src/) by stubs that export the same names and do nothing. */
function stubs(files: string[]): Plugin {
  const paths = new Set(files.map(src));
  return {
    name: 'stub-engine-part',
    enforce: 'pre',
    load(id) {
      if (!paths.has(id)) return null;
      const source = readFileSync(id, 'utf8');
      const names = [...source.matchAll(/^export (?:async )?(function|const|class) (\w+)/gm)].map(
        ([, kind, name]) =>
          kind === 'class'
            ? `export class ${name} extends Error {}`
            : `export const ${name} = () => undefined;`,
      );
      return names.join('\n');
    },
  };
}

/** What each part adds: `whole` minus the same build (`size`) with the part stubbed out. */
async function partCosts(
  parts: Array<[string, string[]]>,
  whole: number,
  size: (stub: Plugin, i: number) => Promise<number>,
): Promise<Array<[string, number]>> {
  const costs: Array<[string, number]> = [];
  for (const [i, [part, files]] of parts.entries()) {
    costs.push([part, whole - (await size(stubs(files), i))]);
  }
  return costs;
}

export default async function (): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'player-size-'));
  try {
    const sizes = await measure(dir);
    const cell = (bytes: number, budget: number, what: string) =>
      `${bytes} | ${goal(bytes <= budget, `<= ${budget}`, what)}`;
    console.log(
      `An app importing ${APP_IMPORTS.join(' and ')} from one adapter (min + gzip -9, players left out; "no splitting": one file as esbuild builds by default, axios resolvable):\n`,
    );
    console.log(
      '| app with | engine | budget | adapter adds | budget | app in one file | no splitting |',
    );
    console.log('|---|---:|---|---:|---|---:|---:|');
    for (const adapter of ADAPTERS) {
      const { engine, adapter: own, total } = sizes[adapter];
      const unsplit = await unsplitApp(adapter, dir);
      console.log(
        `| ${adapter} | ${cell(engine, BUDGET.engine, `engine in the ${adapter} app`)} | ${cell(own, BUDGET.adapter, `${adapter} adapter`)} | ${total} | ${unsplit.bytes} |`,
      );
    }
    console.log(
      `\nBefore and after issue #36 (each app in one file; before: 3b61b54; the renewal driver of #37 stubbed out for the last columns):\n`,
    );
    console.log(
      '| app with | before | after | grows | after, renewal aside | grows, renewal aside | goal (#36) |',
    );
    console.log('|---|---:|---:|---:|---:|---:|---|');
    for (const adapter of ADAPTERS) {
      const { total } = sizes[adapter];
      const lessRenewal = await appTotal(adapter, join(dir, `${adapter}-no-renewal`), [
        stubs(RENEWAL_MODULES),
      ]);
      const grows = lessRenewal - BEFORE[adapter];
      console.log(
        `| ${adapter} | ${BEFORE[adapter]} | ${total} | ${total - BEFORE[adapter]} | ${lessRenewal} | ${grows} | ${goal(grows <= GROWTH_GOAL, `<= ${GROWTH_GOAL}`, `${adapter} app's growth for #36`)} |`,
      );
    }
    console.log(
      `\naxios is not in any of them: an app that passes its own axios instance ships axios (${await axiosSize(dir)} bytes min+gzip) because it uses it.`,
    );
    // Stubbed inside an app, a part the adapter builds on would take the adapter with it: the
    // engine's parts are measured in the engine with every module kept.
    const engineSize = async (plugins: Plugin[], name: string) =>
      gzip(await bundle(src('engine/index.ts'), join(dir, name), plugins));
    const engine = await engineSize([], 'engine');
    console.log(
      `\n| part of the engine (${engine} bytes with every module) | gzip bytes it adds |`,
    );
    console.log('|---|---:|');
    const engineParts = await partCosts(PARTS, engine, (stub, i) =>
      engineSize([stub], `part-${i}`),
    );
    for (const [part, bytes] of engineParts) console.log(`| ${part} | ${bytes} |`);
    console.log('\n| part of the Shaka adapter (in the Shaka app) | gzip bytes it adds |');
    console.log('|---|---:|');
    const shakaParts = await partCosts(SHAKA_PARTS, sizes.shaka.total, (stub, i) =>
      appTotal('shaka', join(dir, `part-shaka-${i}`), [stub]),
    );
    for (const [part, bytes] of shakaParts) console.log(`| ${part} | ${bytes} |`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
