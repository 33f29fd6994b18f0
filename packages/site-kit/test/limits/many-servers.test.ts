import { fork, type ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  decodeGatewayResponse,
  encodeGatewayRequest,
  type GatewayRequest,
} from '../../src/gateway.ts';
import { startRedis, type RedisServer } from '../support/redis-server.ts';

const SITE_KEY = 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa';
const SERVERS = 4;

let redis: RedisServer;
const children: ChildProcess[] = [];
let ports: number[] = [];

beforeAll(async () => {
  redis = await startRedis();
  ports = await Promise.all(
    Array.from({ length: SERVERS }, () => {
      const child = fork(new URL('../support/limits-site.ts', import.meta.url), [], {
        env: { ...process.env, REDIS_URL: redis.url, KEY_PREFIX: 'many:', MAX_STREAMS: '3' },
        stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      });
      children.push(child);
      return new Promise<number>((resolve, reject) => {
        child.once('message', (m) => resolve((m as { port: number }).port));
        child.once('exit', (code) => reject(new Error(`a site process exited with ${code}`)));
      });
    }),
  );
}, 30_000);

afterAll(async () => {
  await Promise.all(
    children.map(
      (child) =>
        new Promise<void>((resolve) => {
          if (child.exitCode !== null) return resolve();
          child.once('exit', () => resolve());
          child.kill();
        }),
    ),
  );
  await redis?.stop();
});

let nonce = 0;

/** The license service's gateway call to one server; the answer's code ("0000": allowed). */
async function license(server: number, request: Omit<GatewayRequest, 'format' | 'nonce'>) {
  const asked: GatewayRequest = { format: 'json', nonce: `n${++nonce}`, ...request };
  const answer = await fetch(`http://127.0.0.1:${ports[server % SERVERS]}/gateway`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: encodeGatewayRequest(asked, SITE_KEY),
  });
  expect(answer.status).toBe(200);
  const decoded = decodeGatewayResponse(await answer.text(), 'json', SITE_KEY);
  return decoded.format === 'json' ? decoded.error_code : decoded.ERROR;
}

describe('one site on four servers sharing a Redis', () => {
  it('admits exactly 3 of 200 concurrent starts of one user, spread over the servers, every time', async () => {
    for (let round = 0; round < 20; round++) {
      const codes = await Promise.all(
        Array.from({ length: 200 }, (_, i) =>
          license(i, {
            user_id: `user-${round}`,
            cid: 'movie',
            device_id: `device-${i}`,
            drm_type: 'Widevine',
          }),
        ),
      );
      const admitted = codes.filter((c) => c === '0000').length;
      expect({ round, admitted }).toEqual({ round, admitted: 3 });
      expect(codes.filter((c) => c === '6101')).toHaveLength(197);
    }
  }, 60_000);

  it('refuses the next renewal on one server of a device banned on another', async () => {
    const viewer = {
      user_id: 'viewer',
      cid: 'film',
      device_id: 'tv',
      drm_type: 'Widevine' as const,
    };
    expect(await license(0, viewer)).toBe('0000');
    expect(await license(1, viewer)).toBe('0000');
    const banned = await fetch(`http://127.0.0.1:${ports[2]}/ban-device?device=tv`, {
      method: 'POST',
    });
    expect(await banned.text()).toBe('banned');
    expect(await license(3, viewer)).toBe('6104');
    expect(await license(0, { ...viewer, device_id: 'phone' })).toBe('0000');
  });
});
