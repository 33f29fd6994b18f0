import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export interface RunningWebDemo {
  /** The page's origin, http://127.0.0.1:<port>. */
  url: string;
  /** The address the script printed, with this run's launch key. */
  openUrl: string;
  emulatorUrl: string;
  /** Everything the script printed. */
  output(): string;
  stop(): Promise<void>;
}

const SCRIPT = fileURLToPath(new URL('../../scripts/web.ts', import.meta.url));

/** Runs `pnpm demo:web`'s script (renderer already built) and waits for the URL it prints. */
export async function startWebDemo(timeoutMs = 30_000): Promise<RunningWebDemo> {
  const child: ChildProcess = spawn(process.execPath, [SCRIPT, '--no-build'], {
    env: { ...process.env, PORT: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const stop = () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    });
  const started = Date.now();
  while (Date.now() - started < timeoutMs) {
    const open = /open ((http:\/\/127\.0\.0\.1:\d+)\/\?launch=[\w-]+)/.exec(output);
    const emulatorUrl = /emulator (http:\/\/127\.0\.0\.1:\d+)/.exec(output)?.[1];
    if (open?.[1] && open[2] && emulatorUrl) {
      return { url: open[2], openUrl: open[1], emulatorUrl, output: () => output, stop };
    }
    if (child.exitCode !== null) break;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  await stop();
  throw new Error(`The web demo did not print its URL within ${timeoutMs} ms. Output:\n${output}`);
}
