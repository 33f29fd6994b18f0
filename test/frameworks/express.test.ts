import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { toNodeListener } from '@multidrm/site-kit';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { checkSite, siteHandlers } from './scenario.ts';

let server: Server;
let base: string;

beforeAll(async () => {
  const { gateway, token } = siteHandlers();
  const app = express();
  // Mounted before any body parser: site-kit reads and limits the body itself.
  app.all('/gateway', toNodeListener(gateway));
  app.all('/token', toNodeListener(token));
  app.use(express.json());
  app.get('/health', (_req, res) => {
    res.send('ok');
  });
  server = app.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

it('serves the gateway and the token endpoint as Express handlers', async () => {
  await checkSite(base);
  expect(await (await fetch(`${base}/health`)).text()).toBe('ok');
});
