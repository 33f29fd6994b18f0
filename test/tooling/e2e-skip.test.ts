import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

// MULTIDRM_E2E=skip is the documented way to run everything on a machine without Chromium. It only
// works when every test file that starts a browser, itself or through a helper, asks e2eSkipped()
// first; a file that forgot (the demo's web-e2e did) failed such a run with a message telling the
// user to set the flag they had set.
const ROOT = join(import.meta.dirname, '../..');
const LAUNCHES = /\blaunchChromium\(/;
const DEFINES = /function launchChromium\(/;
// Starts sessions only with a Chromium that does not exist, to test the message a user then gets.
const NEEDS_NO_BROWSER = ['test/e2e/launcher.test.ts'];

function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (entry.name === 'node_modules' || entry.name.startsWith('.')) return [];
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return testFiles(path);
    return entry.name.endsWith('.test.ts') ? [path] : [];
  });
}

/** Whether the module or anything it imports by a relative path calls launchChromium. */
function startsBrowser(path: string, seen = new Set<string>()): boolean {
  if (seen.has(path) || !existsSync(path)) return false;
  seen.add(path);
  const source = readFileSync(path, 'utf8');
  if (LAUNCHES.test(source.replace(DEFINES, ''))) return true;
  const imports = [...source.matchAll(/from '(\.{1,2}\/[^']+\.ts)'/g)].map((m) => m[1] as string);
  return imports.some((specifier) => startsBrowser(resolve(dirname(path), specifier), seen));
}

const browserTests = ['packages', 'test', 'demo-electron', 'examples']
  .flatMap((dir) => testFiles(join(ROOT, dir)))
  .filter((path) => startsBrowser(path))
  .map((path) => relative(ROOT, path))
  .filter((file) => !NEEDS_NO_BROWSER.includes(file));

describe('MULTIDRM_E2E=skip', () => {
  it('finds the test files that start a browser, directly or through a helper', () => {
    expect(browserTests).toEqual(
      expect.arrayContaining([
        'demo-electron/test/web-e2e.test.ts',
        'test/e2e/token-flow.test.ts',
        'test/e2e/adapters/adapters.test.ts',
      ]),
    );
  });

  it.each(browserTests)('%s asks e2eSkipped() before it starts Chromium', (file) => {
    expect(readFileSync(join(ROOT, file), 'utf8')).toMatch(/\be2eSkipped\(\)/);
  });
});
