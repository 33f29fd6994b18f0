import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, expect, it } from 'vitest';
import { BUDGET_GZIP, bundle } from '../../packages/player/bench/size.bench.ts';

// The size is deterministic for a given source and toolchain, so unlike timing it can gate a test.
const dir = mkdtempSync(join(tmpdir(), 'player-size-test-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it('the player bundle stays within its 6 KB gzip budget and leaves shaka-player to the app', async () => {
  const min = await bundle(join(dir, 'min'), true);
  expect(gzipSync(min, { level: 9 }).length).toBeLessThanOrEqual(BUDGET_GZIP);
  const imports = [...min.matchAll(/from\s*["']([^"']+)["']/g)].map((m) => m[1]);
  expect(imports).toEqual(['axios']);
}, 60_000);
