import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bundleWorker } from '../../packages/site-kit/bench/bundle.ts';
import { freePort, startOnPort, type Started } from './processes.ts';

// workerd from the registry, driven as wrangler would drive it, without wrangler: the Worker bundled
// with the export conditions a Workers bundler uses (bench/bundle.ts), and a capnp config with the
// wrangler.toml's compatibility date and vars. No nodejs_compat flag is set.
const root = join(import.meta.dirname, '../..');
const require = createRequire(join(root, 'test/package.json'));

/** The newest compatibility date the installed workerd supports. */
export const workerdCompatibilityDate = (require('workerd') as { compatibilityDate: string })
  .compatibilityDate;

/** The wrangler.toml of the Workers example, read for what the config needs. */
export function wranglerConfig(): {
  compatibilityDate: string;
  vars: Record<string, string>;
  flags: string[];
} {
  const text = readFileSync(join(root, 'examples/workers/wrangler.toml'), 'utf8');
  const value = (name: string) => new RegExp(`^${name}\\s*=\\s*"([^"]*)"`, 'm').exec(text)?.[1];
  const varsSection = text.split(/^\[vars\]\s*$/m)[1]?.split(/^\[/m)[0] ?? '';
  const vars = Object.fromEntries(
    [...varsSection.matchAll(/^(\w+)\s*=\s*"([^"]*)"/gm)].map((m) => [
      m[1] as string,
      m[2] as string,
    ]),
  );
  const flags = /^compatibility_flags\s*=\s*\[([^\]]*)\]/m.exec(text)?.[1]?.match(/"[^"]+"/g) ?? [];
  return {
    compatibilityDate: value('compatibility_date') ?? '',
    vars,
    flags: flags.map((f) => f.slice(1, -1)),
  };
}

/** Starts workerd serving `entry` with the wrangler.toml's settings and these secrets. */
export async function startWorkerd(
  entry: string,
  secrets: Record<string, string>,
): Promise<Started> {
  const { compatibilityDate, vars } = wranglerConfig();
  const dir = mkdtempSync(join(tmpdir(), 'multidrm-workerd-'));
  writeFileSync(join(dir, 'worker.js'), (await bundleWorker(entry, { minify: false })).code);
  const port = await freePort();
  const bindings = Object.entries({ ...vars, ...secrets })
    .map(([name, text]) => `(name = ${JSON.stringify(name)}, text = ${JSON.stringify(text)})`)
    .join(', ');
  writeFileSync(
    join(dir, 'config.capnp'),
    `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [
    (name = "site", worker = .site),
    # The Worker's fetch goes out through "internet"; loopback too, for the emulator upstream.
    (name = "internet", network = (allow = ["public", "local"])),
  ],
  sockets = [ (name = "http", address = "127.0.0.1:${port}", http = (), service = "site") ],
);
const site :Workerd.Worker = (
  modules = [ (name = "worker.js", esModule = embed "worker.js") ],
  compatibilityDate = ${JSON.stringify(compatibilityDate)},
  bindings = [ ${bindings} ],
);
`,
  );
  const binary = (require('workerd') as { default: string }).default;
  const started = await startOnPort(binary, ['serve', join(dir, 'config.capnp')], port).catch(
    (error: unknown) => {
      rmSync(dir, { recursive: true, force: true });
      throw error;
    },
  );
  return {
    url: started.url,
    stop: async () => {
      await started.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
