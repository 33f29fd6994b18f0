import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, connect } from 'node:net';

/** A server process the table started; `stop` ends it (and only it) by its id. */
export interface Started {
  url: string;
  stop(): Promise<void>;
}

/**
 * Starts a command and waits for the line "listening on <url>" that every example prints; the
 * process's output is kept for the error when it never comes.
 */
export function startListening(
  command: string,
  args: string[],
  env: Record<string, string>,
  timeoutMs = 30_000,
): Promise<Started> {
  const child = spawn(command, args, {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      void stopProcess(child);
      reject(
        new Error(`${command} did not print "listening on" within ${timeoutMs} ms:\n${output}`),
      );
    }, timeoutMs);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const url = /listening on (http:\/\/\S+)/.exec(output)?.[1];
      if (url === undefined) return;
      clearTimeout(timer);
      child.stdout?.off('data', onData);
      resolve({ url, stop: () => stopProcess(child) });
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${command} exited with ${code} before listening:\n${output}`));
    });
  });
}

/** Starts a server that prints nothing when ready; waits until its port accepts connections. */
export async function startOnPort(
  command: string,
  args: string[],
  port: number,
  timeoutMs = 30_000,
): Promise<Started> {
  const child = spawn(command, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let output = '';
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const deadline = Date.now() + timeoutMs;
  while (!(await accepts(port))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      await stopProcess(child);
      throw new Error(`${command} did not listen on port ${port}:\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return { url: `http://127.0.0.1:${port}`, stop: () => stopProcess(child) };
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const force = setTimeout(() => child.kill('SIGKILL'), 3000);
    child.once('exit', () => {
      clearTimeout(force);
      resolve();
    });
    child.kill('SIGTERM');
  });
}
