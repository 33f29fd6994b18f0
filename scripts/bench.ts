// `pnpm bench`: runs every benchmark module (packages/*/bench/*.bench.ts, test/bench/*.bench.ts) in one
// process, one after another, so the figures and ratios each prints come from the same run and machine.
// A module exports `default async function (): Promise<void>` that prints its own table.
import { readdirSync, existsSync } from 'node:fs';
import { join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';

const root = join(import.meta.dirname, '..');
const dirs = [
  ...readdirSync(join(root, 'packages')).map((p) => join(root, 'packages', p, 'bench')),
  join(root, 'test', 'bench'),
];
const only = process.argv[2];
const files = dirs
  .filter((d) => existsSync(d))
  .flatMap((d) =>
    readdirSync(d)
      .filter((f) => f.endsWith('.bench.ts'))
      .map((f) => join(d, f)),
  )
  .filter((f) => !only || f.includes(only))
  .sort();

console.log(`node ${process.version}, ${process.platform}-${process.arch}`);
for (const file of files) {
  console.log(`\n## ${relative(root, file)}`);
  const mod = (await import(pathToFileURL(file).href)) as { default: () => Promise<void> };
  await mod.default();
}
