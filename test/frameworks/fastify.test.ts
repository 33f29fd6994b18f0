import Fastify, { type FastifyInstance } from 'fastify';
import { toNodeListener } from '@multidrm/site-kit';
import { afterAll, beforeAll, it } from 'vitest';
import { checkSite, siteHandlers } from './scenario.ts';

let app: FastifyInstance;
let base: string;

beforeAll(async () => {
  const { gateway, token } = siteHandlers();
  app = Fastify();
  await app.register(async (scope) => {
    // In this scope Fastify leaves bodies unread, so site-kit reads and limits them itself.
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', (_request, _payload, done) => done(null));
    for (const [path, handler] of [
      ['/gateway', gateway],
      ['/token', token],
    ] as const) {
      const listener = toNodeListener(handler);
      scope.all(path, async (request, reply) => {
        reply.hijack();
        await listener(request.raw, reply.raw);
      });
    }
  });
  base = await app.listen({ port: 0, host: '127.0.0.1' });
});

afterAll(async () => {
  await app.close();
});

it('serves the gateway and the token endpoint from Fastify routes', async () => {
  await checkSite(base);
});
