import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

// What users install is the built package: ESM JavaScript with .d.ts, described by publishConfig.
const run = promisify(execFile);
const root = join(import.meta.dirname, '../..');
const tsc = join(root, 'node_modules/typescript/bin/tsc');

interface Manifest {
  publishConfig: {
    exports: Record<string, string | { types: string; default: string }>;
    bin?: Record<string, string>;
  };
}

function published(pkg: string): { types: string[]; files: string[] } {
  const manifest = JSON.parse(readFileSync(join(root, pkg, 'package.json'), 'utf8')) as Manifest;
  const entries = Object.values(manifest.publishConfig.exports).filter(
    (e) => typeof e === 'object',
  );
  return {
    types: entries.map((e) => e.types),
    files: [...entries.map((e) => e.default), ...Object.values(manifest.publishConfig.bin ?? {})],
  };
}

describe.each(['packages/site-kit', 'packages/emulator'])('%s builds to ESM with .d.ts', (pkg) => {
  it('every published entry point exists after the build, with its types', async () => {
    await run(process.execPath, [tsc, '-p', join(root, pkg, 'tsconfig.build.json')]);
    const { types, files } = published(pkg);
    for (const file of [...types, ...files])
      expect(existsSync(join(root, pkg, file)), file).toBe(true);
    expect(readFileSync(join(root, pkg, types[0]!), 'utf8')).toMatch(/export /);
  }, 60_000);
});

describe('the built site-kit', () => {
  it('runs as plain JavaScript, without type stripping', async () => {
    const script = `
      const kit = await import(${JSON.stringify(join(root, 'packages/site-kit/dist/index.js'))});
      console.log(kit.encrypt('sample data', 'a'.repeat(32)));`;
    const { stdout } = await run(process.execPath, [
      '--no-experimental-strip-types',
      '--input-type=module',
      '-e',
      script,
    ]);
    expect(stdout.trim()).toBe('MManHcZraU/jcWYK/cQRgw==');
  }, 60_000);

  it('its built CLI runs', async () => {
    const bin = join(root, 'packages/site-kit/dist/cli/main.js');
    const { stdout } = await run(process.execPath, [
      '--no-experimental-strip-types',
      bin,
      '--help',
    ]);
    expect(stdout).toMatch(/multidrm token create/);
  }, 60_000);
});
