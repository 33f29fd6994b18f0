// Node 22.18+: node examples/node/server.ts (SITE_ID, SITE_KEY, ACCESS_KEY and PORT from the environment).
import { createServer } from 'node:http';
import { toNodeListener } from '@multidrm/site-kit/node';
import { createSite, siteEnv } from '../site.ts';

const server = createServer(toNodeListener(createSite(siteEnv(process.env))));
server.listen(Number(process.env['PORT'] ?? 8080), () => {
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : address;
  console.log(`listening on http://localhost:${port}`);
});
