import { execFile, spawn } from 'node:child_process';
import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join, relative } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  BROWSER_COMPILER_OPTIONS,
  PAGE_DECLARATIONS,
  readmePrograms,
} from '../../packages/player/test/readme-code.ts';
import { vectors } from '../support/vectors.ts';

// What a user installs is what `pnpm pack` makes: prepack builds dist, publishConfig points exports
// and bin at it. Here the three tarballs are installed with npm into a fresh project outside the
// workspace, which then imports them, runs a site's server code, runs the CLIs and type-checks a
// server and a browser file. Needs pnpm and npm on PATH and the npm registry (for the dependencies).
const run = promisify(execFile);
const root = join(import.meta.dirname, '../..');
const consumer = join(import.meta.dirname, 'consumer');
const tsc = join(root, 'node_modules/typescript/bin/tsc');
const PACKAGES = ['site-kit', 'emulator', 'player'] as const;
// The node running the tests runs everything the project starts (npm scripts, bin shims).
const env = {
  ...process.env,
  PATH: `${dirname(process.execPath)}${delimiter}${process.env['PATH']}`,
};

interface Manifest {
  name: string;
  version: string;
  exports: Record<string, string | { types: string; default: string }>;
  bin?: Record<string, string>;
  devDependencies?: Record<string, string>;
  dependencies?: Record<string, string>;
}
const manifest = (dir: string) =>
  JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as Manifest;

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(dir, join(entry.parentPath, entry.name)));
}

let work: string;
let project: string;
let tarballs: string[];
const installed = (pkg: string) => join(project, 'node_modules/@multidrm', pkg);

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'multidrm-packaging-'));
  const packs = join(work, 'packs');
  project = join(work, 'site');
  await Promise.all(
    PACKAGES.map((pkg) =>
      run('pnpm', ['pack', '--pack-destination', packs], { cwd: join(root, 'packages', pkg), env }),
    ),
  );
  tarballs = readdirSync(packs).map((name) => join(packs, name));
  expect(tarballs).toHaveLength(PACKAGES.length);

  mkdirSync(project);
  for (const file of readdirSync(consumer)) copyFileSync(join(consumer, file), join(project, file));
  writeFileSync(
    join(project, 'package.json'),
    JSON.stringify({ name: 'a-site', private: true, type: 'module' }),
  );
  // What the site adds itself: the players (the README's examples use each) and Node's types, at
  // the versions used here.
  const playerDev = manifest(join(root, 'packages/player')).devDependencies ?? {};
  const players = ['shaka-player', 'hls.js', 'dashjs', 'video.js', 'videojs-contrib-eme'];
  const nodeTypes = manifest(root).devDependencies?.['@types/node'];
  await run(
    'npm',
    [
      'install',
      '--no-audit',
      '--no-fund',
      '--loglevel=error',
      ...tarballs,
      ...players.map((name) => `${name}@${playerDev[name]}`),
      `@types/node@${nodeTypes}`,
    ],
    { cwd: project, env },
  );
}, 300_000);

// Removing an installed project (~10k files) takes seconds on a busy machine.
afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
}, 60_000);

describe('the packed packages, installed with npm into a project outside the workspace', () => {
  it.each(PACKAGES)(
    '%s holds its built JavaScript and types only, and every entry point it names is there',
    (pkg) => {
      const dir = installed(pkg);
      const files = filesUnder(dir);
      const source = files.filter((f) => !f.startsWith('dist/') && !f.startsWith('node_modules/'));
      expect(source.sort()).toEqual(['CHANGELOG.md', 'LICENSE', 'README.md', 'package.json']);
      expect(files.filter((f) => /\.ts$/.test(f) && !f.endsWith('.d.ts'))).toEqual([]);

      const packed = manifest(dir);
      // pnpm pack turns workspace:* into the version; npm would not know the protocol.
      expect(JSON.stringify(packed)).not.toContain('workspace:');
      const entries = Object.values(packed.exports).filter((e) => typeof e === 'object');
      expect(entries.length).toBeGreaterThan(0);
      for (const { types, default: js } of entries) {
        expect(files).toContain(join(types));
        expect(files).toContain(join(js));
        expect(readFileSync(join(dir, types), 'utf8')).toMatch(/^export /m);
      }
      for (const bin of Object.values(packed.bin ?? {})) expect(files).toContain(join(bin));
    },
  );

  it.each(PACKAGES)(
    '%s: publint finds nothing to fix in the tarball, in strict mode',
    async (pkg) => {
      const tarball = tarballs.find((path) => path.includes(`multidrm-${pkg}-`)) as string;
      const { stdout } = await run(
        process.execPath,
        [join(root, 'test/node_modules/publint/src/cli.js'), 'run', tarball, '--strict'],
        { env },
      );
      expect(stdout).toMatch(/All good!/);
    },
    60_000,
  );

  it.each(PACKAGES)(
    '%s: are-the-types-wrong finds no problem for ESM consumers (node16 and bundlers)',
    async (pkg) => {
      const tarball = tarballs.find((path) => path.includes(`multidrm-${pkg}-`)) as string;
      // ESM only, on purpose: `require()` of these packages is not supported (node10 and CJS left out).
      const ignored = ['node10', 'node16-cjs'];
      const { stdout } = await run(
        process.execPath,
        [
          join(root, 'test/node_modules/@arethetypeswrong/cli/dist/index.js'),
          tarball,
          '--profile',
          'esm-only',
          '--format',
          'json',
        ],
        { env },
      ).catch((error: { stdout: string }) => error);
      const report = JSON.parse(stdout) as {
        problems?: Record<string, { entrypoint: string; resolutionKind?: string }[]>;
      };
      const problems = Object.values(report.problems ?? {})
        .flat()
        .filter((problem) => !ignored.includes(problem.resolutionKind ?? ''));
      expect(problems).toEqual([]);
    },
    60_000,
  );

  it.each(PACKAGES)('%s: its package.json says what a registry and its users need', (pkg) => {
    const packed = manifest(installed(pkg)) as Manifest & Record<string, unknown>;
    expect(packed).toMatchObject({
      license: 'Apache-2.0',
      type: 'module',
      sideEffects: false,
      repository: { type: 'git', directory: `packages/${pkg}` },
      files: expect.arrayContaining(['dist', 'LICENSE', 'CHANGELOG.md']),
    });
    expect((packed['keywords'] as string[]).length).toBeGreaterThan(3);
    expect(packed['description']).toEqual(expect.any(String));
    // The player runs in the browser: a Node floor would only warn its users' installs.
    if (pkg !== 'player') expect(packed['engines']).toEqual({ node: '>=22.18' });
  });

  it("runs a site's server code: the vector token, the token endpoint, the emulator", async () => {
    const v = vectors.token[0]!;
    const input = {
      siteId: v.site_id,
      siteKey: v.site_key,
      accessKey: v.access_key,
      cid: v.cid,
      userId: v.user_id,
      drmType: v.drm_type,
      policy: JSON.parse(v.token_data) as unknown,
      timestamp: v.timestamp,
    };
    const { stdout } = await run(process.execPath, ['site.ts', JSON.stringify(input)], {
      cwd: project,
      env,
    });
    expect(stdout.trim().split('\n')).toEqual([
      `token ${v.expected.token}`,
      'endpoint 200 movie-1 Widevine',
      'emulator 200',
    ]);
  }, 60_000);

  it('runs the multidrm and multidrm-emulator commands from node_modules/.bin', async () => {
    const cli = await run(join(project, 'node_modules/.bin/multidrm'), ['--help'], { env });
    expect(cli.stdout).toMatch(/multidrm token create/);
    const emulator = await run(join(project, 'node_modules/.bin/multidrm-emulator'), ['--help'], {
      env,
    });
    expect(emulator.stdout).toMatch(/^Usage: multidrm-emulator --config/);
  }, 60_000);

  it('type-checks a server and a browser file against the packed types, library checks on', async () => {
    // consumer/tsconfig.json: strict, NodeNext, skipLibCheck off; each file holds a @ts-expect-error
    // that fails the check if the packed types were missing or `any`.
    const result = await run(process.execPath, [tsc, '-p', join(project, 'tsconfig.json')], {
      cwd: project,
      env,
    }).catch((error: { stdout: string }) => ({ stdout: error.stdout, failed: true }));
    expect(result.stdout).toBe('');
    expect(result).not.toHaveProperty('failed');
  }, 120_000);

  it("type-checks every TypeScript block of the player's README against the packed types, as a Vite app resolves them", async () => {
    const readme = readFileSync(join(installed('player'), 'README.md'), 'utf8');
    const dir = join(project, 'player-readme');
    mkdirSync(dir);
    const programs = readmePrograms(readme);
    expect(programs.length).toBeGreaterThan(10);
    for (const { file, code } of programs) writeFileSync(join(dir, file), code);
    writeFileSync(join(dir, 'page.d.ts'), PAGE_DECLARATIONS);
    writeFileSync(
      join(dir, 'tsconfig.json'),
      JSON.stringify({ compilerOptions: BROWSER_COMPILER_OPTIONS, include: ['*.ts'] }),
    );
    const result = await run(process.execPath, [tsc, '-p', dir], { cwd: dir, env }).catch(
      (error: { stdout: string }) => ({ stdout: error.stdout, failed: true }),
    );
    expect(result.stdout).toBe('');
    expect(result).not.toHaveProperty('failed');
  }, 120_000);
});

// Every `npm install` line of every README's shell blocks, run as written in a new project, with
// `/path/to/multidrm/dist/` standing for where `pnpm pack` wrote the tarballs; the msw example's
// suite then runs in the project its README's line made, as a user who copied the folder runs it.
const README_INSTALLS = [
  'packages/site-kit',
  'packages/emulator',
  'packages/player',
  'examples/vitest-msw',
].flatMap((dir) => {
  const readme = readFileSync(join(root, dir, 'README.md'), 'utf8');
  const blocks = [...readme.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1] as string);
  return blocks
    .flatMap((block) => block.split('\n'))
    .filter((line) => line.startsWith('npm install '))
    .map((line) => [dir, line.replace(/\s+#.*$/, '')] as const);
});

describe("the READMEs' install lines, as written", () => {
  it('are found: one per package README and the example', () => {
    expect(README_INSTALLS.map(([dir]) => dir).sort()).toEqual([
      'examples/vitest-msw',
      'packages/emulator',
      'packages/player',
      'packages/site-kit',
    ]);
  });

  it.each(README_INSTALLS)(
    '%s: %s',
    async (dir, line) => {
      const target = join(work, `readme-${dir.replace(/\W/g, '-')}`);
      mkdirSync(target);
      writeFileSync(
        join(target, 'package.json'),
        JSON.stringify({ name: 'a-site', private: true, type: 'module' }),
      );
      const command = line.replaceAll('/path/to/multidrm/dist/', `${join(work, 'packs')}/`);
      // bash, as a user's shell: the brace expansion in the lines is part of what is tested.
      await run('bash', ['-c', `${command} --no-audit --no-fund --loglevel=error`], {
        cwd: target,
        env,
      });
      if (dir !== 'examples/vitest-msw') return;
      for (const file of ['license.test.ts', 'proxy.test.ts', 'vitest.config.ts', 'tsconfig.json'])
        copyFileSync(join(root, dir, file), join(target, file));
      const { stdout } = await run(join(target, 'node_modules/.bin/vitest'), ['run'], {
        cwd: target,
        env: { ...env, CI: 'true', NO_COLOR: '1' },
      });
      expect(stdout).toMatch(/Test Files +2 passed \(2\)/);
      expect(stdout).toMatch(/Tests +6 passed \(6\)/);
    },
    240_000,
  );
});

describe("the root README's server example", () => {
  it('runs as given in a CommonJS project (npm init -y) as server.mjs, and issues a token for a signed-in user only', async () => {
    const readme = readFileSync(join(root, 'README.md'), 'utf8');
    const code = /Server: a token endpoint[\s\S]*?```js\n([\s\S]*?)```/.exec(readme)?.[1];
    expect(code).toContain('createTokenHandler');
    const target = join(work, 'readme-server');
    mkdirSync(target);
    writeFileSync(
      join(target, 'package.json'),
      JSON.stringify({ name: 'a-site', version: '1.0.0' }),
    );
    const siteKit = tarballs.find((path) => path.includes('multidrm-site-kit-')) as string;
    await run('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error', siteKit], {
      cwd: target,
      env,
    });
    writeFileSync(join(target, 'server.mjs'), code as string);
    const v = vectors.token[0]!;
    // A port another process may take between our pick and the server's listen (the tests run in
    // parallel): the server is started again on another port when that happens, never skipped.
    const launch = (port: number) => {
      const server = spawn(process.execPath, ['server.mjs'], {
        cwd: target,
        env: {
          ...env,
          PORT: String(port),
          MULTIDRM_SITE_ID: v.site_id,
          MULTIDRM_SITE_KEY: v.site_key,
          MULTIDRM_ACCESS_KEY: v.access_key,
        },
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      const started = { server, port, stderr: '' };
      server.stderr.on('data', (chunk: Buffer) => (started.stderr += chunk.toString()));
      return started;
    };
    let started = launch(await freePort());
    const ask = async (cookie?: string): Promise<Response> => {
      for (let attempt = 0; ; attempt++) {
        const { server, port } = started;
        try {
          return await fetch(`http://127.0.0.1:${port}/`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', ...(cookie ? { cookie } : {}) },
            body: JSON.stringify({ cid: 'movie-1', drm_type: 'Widevine' }),
          });
        } catch {
          if (server.exitCode !== null && started.stderr.includes('EADDRINUSE') && attempt < 20) {
            started = launch(await freePort());
          } else if (attempt > 100 || server.exitCode !== null) {
            throw new Error(`server.mjs: ${started.stderr}`);
          }
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
      }
    };
    try {
      const stranger = await ask();
      expect(stranger.status).toBe(403);
      const alice = await ask('user=alice');
      expect(alice.status).toBe(200);
      const token = JSON.parse(Buffer.from(await alice.text(), 'base64').toString('utf8')) as {
        user_id: string;
        cid: string;
      };
      expect(token).toMatchObject({ user_id: 'alice', cid: 'movie-1' });
      expect(started.stderr).toBe('');
    } finally {
      started.server.kill();
    }
  }, 120_000);
});

/** A port nothing listens on now (the system's pick). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}
