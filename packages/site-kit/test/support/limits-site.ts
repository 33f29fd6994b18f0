// One server of a site on many: a gateway whose authorize asks the shared limits, and a ban door.
// Forked by the multi-process tests with REDIS_URL, KEY_PREFIX and MAX_STREAMS; tells its port.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createGatewayHandler } from '../../src/gateway.ts';
import { createLicenseLimits } from '../../src/limits.ts';
import { toNodeListener } from '../../src/node.ts';
import { createRedisStore } from '../../src/redis.ts';

const SITE_KEY = 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa';

const store = createRedisStore({ url: process.env['REDIS_URL']! });
const limits = createLicenseLimits({
  store,
  keyPrefix: process.env['KEY_PREFIX']!,
  maxStreams: Number(process.env['MAX_STREAMS']),
  deadlineMs: 2_000,
  onOutage: 'refuse',
});
const gateway = toNodeListener(
  createGatewayHandler({
    siteKey: SITE_KEY,
    authorize: async (request) => {
      const verdict = await limits.check({
        userId: request.user_id,
        cid: request.cid,
        ...(request.device_id === undefined ? {} : { deviceId: request.device_id }),
      });
      if (!verdict.allow) return verdict.gateway;
      return { allow: true, playback_policy: { limit: true, duration: 3600 } };
    },
  }),
);

const server = createServer((req, res) => {
  const url = new URL(req.url ?? '/', 'http://site');
  if (url.pathname === '/ban-device') {
    limits.banDevice(url.searchParams.get('device') ?? '').then(
      () => res.end('banned'),
      () => res.writeHead(503).end('the store did not answer'),
    );
    return;
  }
  gateway(req, res);
});
await store.ready();
server.listen(0, '127.0.0.1', () => {
  process.send!({ port: (server.address() as AddressInfo).port });
});
process.on('disconnect', () => {
  server.close();
  void store.close();
});
