import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import {
  ADAPTERS,
  bundle,
  CEILING,
  importsOf,
  measure,
  unsplitApp,
  type Sizes,
} from '../../packages/player/bench/size.bench.ts';

// Sizes are deterministic for a given source and toolchain, so unlike timing they can gate a test.
// `pnpm bench size` reports them against the budgets (engine 5 KiB, adapter 1.5 KiB); here
// what each adapter adds to an app is held to its budget (Shaka's to the ceiling the bench module
// names), and the engine, which misses its own, to the ceiling the bench module names (packages/player/README.md says what its bytes buy).
const dir = mkdtempSync(join(tmpdir(), 'player-size-test-'));
let sizes: Sizes;
beforeAll(async () => {
  sizes = await measure(dir);
}, 120_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test.each(ADAPTERS)(
  'the engine an app with the %s adapter bundles stays within its ceiling',
  (adapter) => {
    expect(sizes[adapter].engine).toBeGreaterThan(0);
    expect(sizes[adapter].engine).toBeLessThanOrEqual(CEILING.engine);
  },
);

test.each(ADAPTERS)('what the %s adapter adds to an app stays within its ceiling', (adapter) => {
  expect(sizes[adapter].adapter).toBeGreaterThan(0);
  expect(sizes[adapter].adapter).toBeLessThanOrEqual(CEILING.adapter[adapter]);
});

test('an app with Shaka does not bundle the license requests only the other adapters send', () => {
  // The sender (fetch, retry, PlayReady challenges) is the difference between the engines.
  expect(sizes.shaka.engine).toBeLessThan(sizes.hls.engine - 400);
});

test.each(['index', ...ADAPTERS])(
  'the %s entry leaves its player to the app and imports no axios',
  async (entry) => {
    const path = join(
      import.meta.dirname,
      '../../packages/player/src',
      entry === 'index' ? 'index.ts' : `${entry}/index.ts`,
    );
    const code = await bundle(path, join(dir, `imports-${entry}`));
    // No import at all: the players' types only; axios is the app's, passed as an instance.
    expect(importsOf(code)).toEqual({ static: [], dynamic: [] });
  },
  60_000,
);

test.each(ADAPTERS)(
  'an app with the %s adapter built without code splitting, axios resolvable, ships no axios',
  async (adapter) => {
    const { bytes, code } = await unsplitApp(adapter, dir);
    // axios's own class names: the package's sentences may name the option, never its code.
    expect(code).not.toMatch(/AxiosError|AxiosHeaders/);
    // The same bytes as the app built with splitting, give or take the bundler's glue.
    expect(Math.abs(bytes - sizes[adapter].total)).toBeLessThan(100);
  },
  60_000,
);
