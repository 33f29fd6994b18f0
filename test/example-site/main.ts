// `node test/example-site/main.ts`: runs the example site on 127.0.0.1 and prints its URL.
// Credentials come from SITE_ID / SITE_KEY / ACCESS_KEY; the defaults are demo values, not secrets.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { toNodeListener } from '@multidrm/site-kit';
import { createExampleSite } from './site.ts';

const site = createExampleSite({
  siteId: process.env['SITE_ID'] ?? 'DEMO',
  siteKey: process.env['SITE_KEY'] ?? 'demo-site-key-0123456789abcdefgh',
  accessKey: process.env['ACCESS_KEY'] ?? 'demo-access-key',
  playerOrigins: process.env['PLAYER_ORIGINS']?.split(',').filter(Boolean),
  onEvent: (source, event) => console.log(`[${source}] ${event.type}`, JSON.stringify(event)),
});

const server = createServer(toNodeListener(site));
server.listen(Number(process.env['PORT'] ?? 0), '127.0.0.1', () => {
  const { port } = server.address() as AddressInfo;
  console.log(`example site listening on http://127.0.0.1:${port}`);
  console.log('  POST /gateway      the license service callback (form body data=...)');
  console.log('  POST /token        {"cid","drm_type"} with cookie user=<id>  -> license token');
  console.log(
    '  POST /custom-data  {"cid","drm_type"} with cookie user=<id>  -> gateway custom data',
  );
});

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => server.close(() => process.exit(0)));
}
