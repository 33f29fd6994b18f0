import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';

const run = promisify(execFile);
const fixture = fileURLToPath(new URL('./fixtures/deadline-after-gc.ts', import.meta.url));

// Node's fetch copies the request, whose abort follows the proxy's signal only through a WeakRef:
// with garbage collected while the service is silent, the abort reached nothing and the client
// waited with no answer. A process of its own, for --expose-gc.
it.each([
  ['is silent', 'silent'],
  ['sends its head and then stalls', 'head'],
])(
  'answers 504 when the service %s and garbage is collected meanwhile (web fetch upstream)',
  async (_what, mode) => {
    const { stdout, stderr } = await run(process.execPath, ['--expose-gc', fixture, mode], {
      timeout: 20_000,
    });
    expect(stderr).toBe('');
    expect(stdout.trim()).toBe('504');
  },
);
