import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import {
  ADAPTERS,
  BUDGET,
  bundle,
  CEILING,
  importsOf,
  measure,
  type Sizes,
} from '../../packages/player/bench/size.bench.ts';

// Sizes are deterministic for a given source and toolchain, so unlike timing they can gate a test.
// The budgets (engine 5 KiB, adapter 1.5 KiB) are what `pnpm bench size` reports against;
// here the adapters that meet theirs are held to it, and the engine and the Shaka adapter to the
// ceilings the bench module names (packages/player/README.md says what their bytes buy).
const dir = mkdtempSync(join(tmpdir(), 'player-size-test-'));
let sizes: Sizes;
beforeAll(async () => {
  sizes = await measure(dir);
}, 60_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test('the engine stays within its ceiling', () => {
  expect(sizes.engine).toBeLessThanOrEqual(CEILING.engine);
});

test.each(ADAPTERS)('the %s adapter’s own code stays within its ceiling', (adapter) => {
  expect(sizes.own[adapter]).toBeLessThanOrEqual(CEILING[adapter]);
});

test.each(['hls', 'dash', 'videojs'] as const)(
  'the %s adapter meets the issue’s 1.5 KiB budget',
  (adapter) => {
    expect(sizes.own[adapter]).toBeLessThanOrEqual(BUDGET.adapter);
  },
);

test.each(['index', ...ADAPTERS])(
  'the %s entry leaves its player to the app and loads axios only on demand',
  async (entry) => {
    const path = join(
      import.meta.dirname,
      '../../packages/player/src',
      entry === 'index' ? 'index.ts' : `${entry}/index.ts`,
    );
    const code = await bundle(path, join(dir, `imports-${entry}`));
    // No static import at all: the players' types only, and axios as a chunk loaded at the first
    // token when neither `fetch` nor an axios instance is given.
    expect(importsOf(code)).toEqual({ static: [], dynamic: ['axios'] });
  },
  60_000,
);
