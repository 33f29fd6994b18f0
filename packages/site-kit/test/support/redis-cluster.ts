import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { answers, freePort, redisServer } from './redis-server.ts';

const run = promisify(execFile);

/** A real Redis Cluster of three masters on free loopback ports, off the disk; stopped by PID. */
export interface RedisCluster {
  ports: number[];
  rootNodes: { url: string }[];
  /** The port of the master that holds `key`'s slot. */
  portOf(key: string): Promise<number>;
  /** Kills one master (SIGKILL) and waits for its exit. */
  kill(port: number): Promise<void>;
  /** Starts it again on its port, from its cluster config (the same node, the same slots). */
  restart(port: number): Promise<void>;
  stop(): Promise<void>;
}

/** `ports`: where to start it (three free ones, e.g. from {@link distinctPorts}); default any. */
export async function startRedisCluster(given?: number[]): Promise<RedisCluster> {
  const binary = redisServer();
  if (binary === undefined)
    throw new Error('redis-server is missing: these tests need a real Redis.');
  const cli = join(dirname(binary), 'redis-cli');
  const dir = await mkdtemp(join(tmpdir(), 'site-kit-cluster-'));
  const children = new Map<number, ChildProcess>();
  const killed = (child: ChildProcess) =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGKILL');
    });
  const stop = async () => {
    await Promise.all([...children.values()].map(killed));
    await rm(dir, { recursive: true, force: true });
  };
  const launch = (port: number) =>
    children.set(
      port,
      spawn(
        binary,
        [
          '--port',
          String(port),
          '--bind',
          '127.0.0.1',
          '--cluster-enabled',
          'yes',
          '--cluster-config-file',
          join(dir, `nodes-${port}.conf`),
          '--dir',
          dir,
          '--save',
          '',
          '--appendonly',
          'no',
        ],
        { stdio: 'ignore' },
      ),
    );
  try {
    const ports = given ?? (await distinctPorts(3));
    for (const port of ports) launch(port);
    for (const port of ports) await until(() => answers(port), `redis-server on port ${port}`);
    await run(cli, [
      '--cluster',
      'create',
      ...ports.map((p) => `127.0.0.1:${p}`),
      '--cluster-replicas',
      '0',
      '--cluster-yes',
    ]);
    // Every node must agree that all slots are served before a client discovers the topology.
    for (const port of ports) {
      await until(async () => {
        const { stdout } = await run(cli, ['-p', String(port), 'cluster', 'info']);
        return stdout.includes('cluster_state:ok');
      }, `cluster_state:ok on port ${port}`);
    }
    return {
      ports,
      rootNodes: ports.map((p) => ({ url: `redis://127.0.0.1:${p}` })),
      async portOf(key) {
        const { stdout } = await run(cli, ['-p', String(ports[0]), 'cluster', 'keyslot', key]);
        const slot = Number(stdout.trim());
        const { stdout: shards } = await run(cli, ['-p', String(ports[0]), 'cluster', 'slots']);
        // redis-cli prints CLUSTER SLOTS flat: from, to, then the master's ip, port and id.
        const lines = shards.trim().split('\n');
        for (let i = 0; i + 3 < lines.length; i++) {
          const [from, to, ip, port] = lines.slice(i, i + 4).map((l) => l.trim());
          if (ip === '127.0.0.1' && Number(from) <= slot && slot <= Number(to)) return Number(port);
        }
        throw new Error(`no node holds slot ${slot}`);
      },
      async kill(port) {
        await killed(children.get(port)!);
      },
      async restart(port) {
        launch(port);
        await until(() => answers(port), `redis-server on port ${port}`);
      },
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

export async function distinctPorts(n: number): Promise<number[]> {
  const ports = new Set<number>();
  while (ports.size < n) ports.add(await freePort());
  return [...ports];
}

async function until(check: () => Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (await check().catch(() => false)) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`timed out waiting for ${what}`);
}
