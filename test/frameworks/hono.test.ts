import type { AddressInfo } from 'node:net';
import { serve, type ServerType } from '@hono/node-server';
import { Hono } from 'hono';
import { afterAll, beforeAll, it } from 'vitest';
import { checkSite, siteHandlers } from './scenario.ts';

let server: ServerType;
let base: string;

beforeAll(async () => {
  const { gateway, token } = siteHandlers();
  // Hono speaks Request/Response already: the handlers are mounted as they are.
  const app = new Hono();
  app.all('/gateway', (c) => gateway(c.req.raw));
  app.all('/token', (c) => token(c.req.raw));
  await new Promise<void>((resolve) => {
    server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve());
  });
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

it('serves the gateway and the token endpoint from Hono routes', async () => {
  await checkSite(base);
});
