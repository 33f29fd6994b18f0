import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { ERROR_CODES, parseConfig } from '../src/index.ts';

const pkg = join(import.meta.dirname, '..');
const readme = readFileSync(join(pkg, 'README.md'), 'utf8');
const block = (lang: string, example?: string) => {
  const from = example === undefined ? readme : readme.split(`<!-- example: ${example} -->`)[1];
  const match = new RegExp('```' + lang + '\\n([\\s\\S]*?)```').exec(from ?? '');
  if (!match?.[1])
    throw new Error(`README has no ${lang} block${example ? ` for ${example}` : ''}`);
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
      writeFileSync(file, block('ts', 'server'));
      const { stdout } = await promisify(execFile)(process.execPath, [file], { timeout: 20_000 });
      expect(stdout).toContain('license-issued');
      expect(stdout).toContain("k: '_-7dzLuqmYh3ZlVEMyIRAA'");
      expect(stdout).toContain("type: 'temporary'");
      expect(stdout).toMatch(
        /^200 \{\n? *errorCode: '7011',\n? *message: 'Token expired',\n? *reason: 'TOKEN_EXPIRED'/m,
      );
    },
  );

  it(
    'has an msw kit example that runs: a license, then 7011 from a fault once, then a license again',
    { timeout: 30_000 },
    async () => {
      const file = join(dir, 'msw-example.ts');
      writeFileSync(file, block('ts', 'msw'));
      const { stdout } = await promisify(execFile)(process.execPath, [file], { timeout: 20_000 });
      const licenses = stdout.split("k: '_-7dzLuqmYh3ZlVEMyIRAA'").length - 1;
      expect(licenses).toBe(2);
      expect(stdout).toMatch(/errorCode: '7011',\n? *message: 'Token expired'/);
      expect(stdout.indexOf("errorCode: '7011'")).toBeGreaterThan(stdout.indexOf('_-7dzLuq'));
    },
  );

  it('documents every code with its service code (ours marked), message, status and meaning, as in errors.ts', () => {
    const table =
      readme.split('<!-- error-codes:start -->')[1]?.split('<!-- error-codes:end -->')[0] ?? '';
    const cells = (row: string) =>
      row
        .split('|')
        .slice(1, -1)
        .map((c) => c.trim());
    const rows = table.trim().split('\n').slice(2).map(cells);
    expect(rows).toEqual(
      Object.entries(ERROR_CODES).map(([code, entry]) => [
        `\`${code}\``,
        'serviceCode' in entry
          ? `${entry.serviceCode}${/^60\d\d$/.test(entry.serviceCode) ? ' (ours)' : ''}`
          : '—',
        'message' in entry ? entry.message : '—',
        String(entry.status),
        entry.meaning,
      ]),
    );
  });

  it('marks exactly the codes 6000-6099 as ours, and uses no other code outside the service table', () => {
    const service = [
      '1003',
      '7001',
      '7007',
      '7008',
      '7009',
      '7010',
      '7011',
      '7012',
      '7013',
      '7016',
      '7018',
      '7019',
      '7107',
      '7203',
      '7206',
      '7305',
      '7316',
      '8002',
      '8004',
      '8006',
      '8701',
      '8705',
      '8706',
      '8707',
      '8708',
      '8709',
      '8710',
      '8711',
      '8712',
      '8715',
      '8716',
      '9001',
      '9999',
    ];
    for (const entry of Object.values(ERROR_CODES)) {
      if (!('serviceCode' in entry)) continue;
      expect(service.includes(entry.serviceCode) || /^60\d\d$/.test(entry.serviceCode)).toBe(true);
    }
  });
});
