import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { expect, test } from 'vitest';

// The fuses electron-builder flips in the packaged Electron binary (`electronFuses` in
// electron-builder.yml). Packaging itself needs the internet; the configuration is checked here,
// against the names electron-builder's own schema knows, so that a misspelt fuse cannot pass.

const CONFIG = new URL('../electron-builder.yml', import.meta.url);

/** The `electronFuses:` block of the YAML file: `name: true|false` lines indented under it. */
function fusesOf(yaml: string): Record<string, unknown> {
  const lines = yaml.split('\n');
  const start = lines.findIndex((line) => line === 'electronFuses:');
  if (start < 0) return {};
  const fuses: Record<string, unknown> = {};
  for (const line of lines.slice(start + 1)) {
    const entry = /^ {2}(\w+): *(\S+)$/.exec(line);
    if (entry === null) break;
    fuses[entry[1] as string] =
      entry[2] === 'true' ? true : entry[2] === 'false' ? false : entry[2];
  }
  return fuses;
}

test('the packaged app cannot be run as Node, given NODE_OPTIONS or --inspect, or run code from outside its checked asar', async () => {
  const fuses = fusesOf(await readFile(CONFIG, 'utf8'));
  expect(fuses).toMatchObject({
    runAsNode: false,
    enableNodeOptionsEnvironmentVariable: false,
    enableNodeCliInspectArguments: false,
    onlyLoadAppFromAsar: true,
    enableEmbeddedAsarIntegrityValidation: true,
  });
});

test("every fuse is one electron-builder's schema names, with a boolean", async () => {
  const require = createRequire(electronBuilderPackage());
  const schema = JSON.parse(
    await readFile(require.resolve('app-builder-lib/scheme.json'), 'utf8'),
  ) as { definitions: Record<string, { properties: Record<string, unknown> }> };
  const known = Object.keys(schema.definitions['FuseOptionsV1']?.properties ?? {});
  const fuses = fusesOf(await readFile(CONFIG, 'utf8'));
  expect(Object.keys(fuses).length).toBeGreaterThanOrEqual(5);
  for (const [name, setting] of Object.entries(fuses)) {
    expect(known, name).toContain(name);
    expect(typeof setting, name).toBe('boolean');
  }
});

/** app-builder-lib is electron-builder's dependency: resolve it from there. */
function electronBuilderPackage(): string {
  return createRequire(import.meta.url).resolve('electron-builder/package.json');
}
