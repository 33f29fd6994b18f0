// `pnpm bench [NAME ...]`: runs every benchmark module (packages/*/bench/*.bench.ts,
// test/bench/*.bench.ts), or those whose path contains a NAME, in one process, one after another, so
// the figures and ratios each prints come from the same run and machine. A module exports
// `default async function (): Promise<void>` that prints its own table; goals go through
// bench-goal.ts, and every missed one is listed again at the end.
import { existsSync, readdirSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { goalReport, MISSED_MARKER } from './bench-goal.ts';
// The CLI's typo helper, shared rather than copied.
import { nearest } from '../packages/site-kit/src/cli/nearest.ts';

const root = join(import.meta.dirname, '..');
const dirs = [
  ...readdirSync(join(root, 'packages')).map((p) => join(root, 'packages', p, 'bench')),
  join(root, 'test', 'bench'),
];
const all = dirs
  .filter((d) => existsSync(d))
  .flatMap((d) =>
    readdirSync(d)
      .filter((f) => f.endsWith('.bench.ts'))
      .map((f) => relative(root, join(d, f))),
  )
  .sort();
const nameOf = (file: string) => basename(file, '.bench.ts');

const usage = `Usage: pnpm bench [NAME ...]

Runs every benchmark, or those whose path contains a NAME (e.g. token, site-kit), one after another
in one process. Each prints its table; goals print "met" or "${MISSED_MARKER}", and missed goals are
listed again at the end.

Names: ${all.map(nameOf).join(', ')}
`;

const args = process.argv.slice(2);
if (args.includes('--help') || args.includes('-h')) {
  process.stdout.write(usage);
  process.exit(0);
}
const option = args.find((a) => a.startsWith('-'));
if (option !== undefined) {
  process.stderr.write(`pnpm bench: unknown option "${option}"\n\n${usage}`);
  process.exit(2);
}
const unknown = args.filter((name) => !all.some((f) => f.includes(name)));
if (unknown.length > 0) {
  const hints = unknown.map((name) => {
    const close = nearest(name, all.map(nameOf));
    return `"${name}"${close === undefined ? '' : ` (did you mean ${close}?)`}`;
  });
  process.stderr.write(
    `pnpm bench: no benchmark matches ${hints.join(', ')}.\nNames: ${all.map(nameOf).join(', ')}\n`,
  );
  process.exit(2);
}
const files = all.filter((f) => args.length === 0 || args.some((name) => f.includes(name)));

console.log(`node ${process.version}, ${process.platform}-${process.arch}`);
for (const file of files) {
  console.log(`\n## ${file}`);
  const mod = (await import(pathToFileURL(join(root, file)).href)) as {
    default: () => Promise<void>;
  };
  await mod.default();
}

const report = goalReport();
if (report !== undefined) console.log(`\n${report}`);
