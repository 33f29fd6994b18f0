import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { LambdaHttpEvent } from '../../examples/lambda/web-to-lambda.ts';
import type { VectorReport } from './harness/vectors.ts';
import { startListening, type Started } from './processes.ts';
import { startWorkerd, wranglerConfig } from './workerd.ts';

// Each runtime of the table, started once from its example in examples/ (workerd: the example
// wrapped by harness/worker.ts, which adds the vector route). Every target answers through `send`.
const run = promisify(execFile);
const root = join(import.meta.dirname, '../..');
const require = createRequire(join(root, 'test/package.json'));
const printVectors = join(import.meta.dirname, 'harness/print-vectors.ts');

export interface Answer {
  status: number;
  headers: Headers;
  text: string;
}

export interface Server {
  send(path: string, init?: RequestInit): Promise<Answer>;
  /** The vector report computed inside the runtime. */
  vectors(): Promise<VectorReport>;
  stop(): Promise<void>;
}

/** The site's credentials for this run: the Workers vars from wrangler.toml, fresh keys. */
export const SITE = {
  SITE_ID: wranglerConfig().vars['SITE_ID'] ?? 'TUTO',
  SITE_KEY: randomBytes(24).toString('base64'),
  ACCESS_KEY: randomBytes(24).toString('base64'),
};

const deno = join(require.resolve('deno/package.json'), '../deno');
const bun = join(require.resolve('bun-runtime/package.json'), '../bin/bun.exe');
const DENO_ENV = '--allow-env=SITE_ID,SITE_KEY,ACCESS_KEY,PORT,LICENSE_SERVER_URL';

function overHttp(started: Started, vectors: () => Promise<VectorReport>): Server {
  return {
    async send(path, init) {
      const response = await fetch(`${started.url}${path}`, init);
      return { status: response.status, headers: response.headers, text: await response.text() };
    },
    vectors,
    stop: () => started.stop(),
  };
}

async function printedVectors(command: string, args: string[]): Promise<VectorReport> {
  const { stdout } = await run(command, [...args, printVectors], {
    cwd: root,
    env: { ...process.env, DENO_NO_UPDATE_CHECK: '1' },
    maxBuffer: 1 << 22,
  });
  return JSON.parse(stdout) as VectorReport;
}

const siteEnv = (licenseUrl: string) => ({
  ...SITE,
  LICENSE_SERVER_URL: licenseUrl,
  PORT: '0',
  DENO_NO_UPDATE_CHECK: '1',
});

/** Each runtime, started with the license proxy's upstream at `licenseUrl` (the emulator). */
export const TARGETS: Record<string, (licenseUrl: string) => Promise<Server>> = {
  'Node (node:http)': async (licenseUrl) =>
    overHttp(
      await startListening(process.execPath, ['examples/node/server.ts'], siteEnv(licenseUrl)),
      () => printedVectors(process.execPath, []),
    ),

  'AWS Lambda (Node, payload 2.0 events)': async (licenseUrl) => {
    Object.assign(process.env, SITE, { LICENSE_SERVER_URL: licenseUrl });
    const { handler } = await import('../../examples/lambda/handler.ts');
    const { vectorReport } = await import('./harness/vectors.ts');
    return {
      async send(path, init = {}) {
        const request = new Request(`https://fn.lambda-url.test${path}`, init);
        const url = new URL(request.url);
        const headers: Record<string, string> = {};
        request.headers.forEach((value, name) => {
          if (name !== 'cookie') headers[name] = value;
        });
        const cookie = request.headers.get('cookie');
        const text = request.method === 'GET' ? '' : await request.text();
        const event: LambdaHttpEvent = {
          rawPath: url.pathname,
          rawQueryString: url.search.slice(1),
          headers,
          ...(cookie === null ? {} : { cookies: cookie.split(/;\s*/) }),
          requestContext: { domainName: 'fn.lambda-url.test', http: { method: request.method } },
          ...(text === ''
            ? {}
            : { body: Buffer.from(text).toString('base64'), isBase64Encoded: true }),
        };
        const result = await handler(event);
        const body = result.isBase64Encoded
          ? Buffer.from(result.body, 'base64').toString()
          : result.body;
        return { status: result.statusCode, headers: new Headers(result.headers), text: body };
      },
      vectors: vectorReport,
      stop: async () => undefined,
    };
  },

  Bun: async (licenseUrl) =>
    overHttp(await startListening(bun, ['examples/bun/server.ts'], siteEnv(licenseUrl)), () =>
      printedVectors(bun, []),
    ),

  Deno: async (licenseUrl) =>
    overHttp(
      await startListening(
        deno,
        ['run', '--allow-net=127.0.0.1', DENO_ENV, 'examples/deno/main.ts'],
        siteEnv(licenseUrl),
      ),
      () => printedVectors(deno, ['run']),
    ),

  'workerd (no nodejs_compat)': async (licenseUrl) => {
    const started = await startWorkerd(join(import.meta.dirname, 'harness/worker.ts'), {
      SITE_KEY: SITE.SITE_KEY,
      ACCESS_KEY: SITE.ACCESS_KEY,
      LICENSE_SERVER_URL: licenseUrl,
    });
    return overHttp(started, async () => {
      const response = await fetch(`${started.url}/__vectors`);
      return (await response.json()) as VectorReport;
    });
  },
};
