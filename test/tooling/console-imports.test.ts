import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

// The console lays out what site-kit computes; it holds none of its logic. So its sources reach
// site-kit only through the package's public entries, never into its files.
const src = join(import.meta.dirname, '../../packages/console/src');

function sources(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => join(entry.parentPath, entry.name));
}

describe('the console', () => {
  it('imports site-kit by its package entries only, and no node: module', () => {
    const specifiers = sources(src).flatMap((file) =>
      [...readFileSync(file, 'utf8').matchAll(/from '([^']+)'/g)].map((m) => m[1] as string),
    );
    expect(specifiers).toContain('@multidrm/site-kit');
    const outside = specifiers.filter((s) => !s.startsWith('./') && !s.startsWith('../'));
    expect([...new Set(outside)].sort()).toEqual(['@multidrm/site-kit']);
    const upward = specifiers.filter((s) => s.includes('site-kit/src') || s.startsWith('../../'));
    expect(upward).toEqual([]);
  });
});
