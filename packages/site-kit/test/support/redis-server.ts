import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer, connect } from 'node:net';
import { delimiter, join } from 'node:path';

// As dev.sh looks for it: REDIS_SERVER, else Debian's path, else PATH.
export function redisServer(): string | undefined {
  const given = process.env['REDIS_SERVER']?.trim();
  if (given) return existsSync(given) ? given : undefined;
  if (existsSync('/usr/bin/redis-server')) return '/usr/bin/redis-server';
  for (const dir of (process.env['PATH'] ?? '').split(delimiter)) {
    if (dir !== '' && existsSync(join(dir, 'redis-server'))) return join(dir, 'redis-server');
  }
  return undefined;
}

/** A real Redis on a free loopback port, off the disk; one per test file, stopped by its PID. */
export interface RedisServer {
  port: number;
  url: string;
  pid: number;
  /** SIGSTOP: Redis holds its connections and answers nothing (a stall). */
  pause(): void;
  /** SIGCONT. */
  resume(): void;
  /** Kills it (SIGKILL) and waits for its exit. */
  kill(): Promise<void>;
  /** Starts it again on the same port. */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

export async function startRedis(): Promise<RedisServer> {
  const binary = redisServer();
  if (binary === undefined) {
    throw new Error(
      'redis-server is missing (REDIS_SERVER, /usr/bin/redis-server, PATH): these tests need a real Redis. Install it with: sudo apt-get install -y redis-server (macOS: brew install redis)',
    );
  }
  const port = await freePort();
  let child = await launch(binary, port);
  const exited = (c: ChildProcess) =>
    new Promise<void>((resolve) => {
      if (c.exitCode !== null || c.signalCode !== null) resolve();
      else c.once('exit', () => resolve());
    });
  const server: RedisServer = {
    port,
    url: `redis://127.0.0.1:${port}`,
    get pid() {
      return child.pid!;
    },
    pause: () => process.kill(child.pid!, 'SIGSTOP'),
    resume: () => process.kill(child.pid!, 'SIGCONT'),
    async kill() {
      process.kill(child.pid!, 'SIGKILL');
      await exited(child);
    },
    async restart() {
      child = await launch(binary, port);
    },
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      process.kill(child.pid!, 'SIGCONT');
      process.kill(child.pid!, 'SIGKILL');
      await exited(child);
    },
  };
  return server;
}

async function launch(binary: string, port: number): Promise<ChildProcess> {
  const child = spawn(
    binary,
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    { stdio: 'ignore' },
  );
  for (let i = 0; i < 200; i++) {
    if (await answers(port)) return child;
    if (child.exitCode !== null) break;
    await new Promise((r) => setTimeout(r, 25));
  }
  child.kill('SIGKILL');
  throw new Error(`redis-server did not start on port ${port}`);
}

export function answers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.write('PING\r\n');
    });
    socket.once('data', (data) => {
      socket.destroy();
      resolve(data.toString().startsWith('+PONG'));
    });
    socket.once('error', () => resolve(false));
  });
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
