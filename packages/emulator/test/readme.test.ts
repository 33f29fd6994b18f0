import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { ERROR_CODES, parseConfig } from '../src/index.ts';

const pkg = join(import.meta.dirname, '..');
const readme = readFileSync(join(pkg, 'README.md'), 'utf8');
const block = (lang: string) => {
  const match = new RegExp('```' + lang + '\\n([\\s\\S]*?)```').exec(readme);
  if (!match?.[1]) throw new Error(`README has no ${lang} block`);
  return match[1];
};
// Inside the package, so that '@multidrm/emulator' (self-reference) and site-kit resolve.
const dir = mkdtempSync(join(pkg, '.readme-example-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('README', () => {
  it('has a config example that the emulator accepts', () => {
    const config = parseConfig(JSON.parse(block('json')));
    expect(config.sites[0]?.siteId).toBe('DEMO');
  });

  it(
    'has a code example that runs and prints the license it describes',
    { timeout: 30_000 },
    async () => {
      const file = join(dir, 'example.ts');
      writeFileSync(file, block('ts'));
      const { stdout } = await promisify(execFile)(process.execPath, [file], { timeout: 20_000 });
      expect(stdout).toContain('license-issued');
      expect(stdout).toContain("k: '_-7dzLuqmYh3ZlVEMyIRAA'");
      expect(stdout).toContain("type: 'temporary'");
    },
  );

  it('documents every error code with its status and meaning, as in errors.ts', () => {
    const table =
      readme.split('<!-- error-codes:start -->')[1]?.split('<!-- error-codes:end -->')[0] ?? '';
    const cells = (row: string) =>
      row
        .split('|')
        .slice(1, -1)
        .map((c) => c.trim());
    const rows = table.trim().split('\n').slice(2).map(cells);
    expect(rows).toEqual(
      Object.entries(ERROR_CODES).map(([code, { status, meaning }]) => [
        `\`${code}\``,
        String(status),
        meaning,
      ]),
    );
  });
});
